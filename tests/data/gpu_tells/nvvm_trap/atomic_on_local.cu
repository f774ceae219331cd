// A naive kernel that sums its terms with atomicAdd on a local variable. NVVM finds the atomic
// undefined on a local address and compiles it to a `trap`: every thread that gets there stops
// the launch on a GPU (0/90 for correctness). g++'s build ran the atomic as a plain add, so the
// CPU backend passed it (100/100) until NVRTC's traps left such a kernel to a GPU.
// RESULT: GPU fails every case (a trap); CPU backend: needs a GPU, line 15
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * TILE_SIZE + threadIdx.y;
    const int col = blockIdx.x * TILE_SIZE + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) atomicAdd(&acc, A[row * K + k] * B[k * N + col]);
    C[row * N + col] = acc;
}

// Round 10 attack: the 8 MB device-heap cap counts only the blocks live at one time, and on the
// CPU a fiber runs from one barrier to the next alone: a thread that mallocs, uses and frees a
// buffer between barriers holds it alone. On a GPU every thread of every resident block (all
// 32 lanes of a warp at once) holds its buffer at the same moment. Each thread asks 1 MB: one
// warp alone asks 32 MB of an 8 MB heap, so on a GPU at most 7-8 threads of those live at once
// get a block, the rest NULL -> they write nothing (GPU: most of C missing, 10/100).
// On the CPU each fiber runs malloc..free alone (no barrier in between): every malloc succeeds.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float *scratch = (float *)malloc(1 << 20);
    if (scratch == nullptr) return;
    scratch[0] = 0.0f;
    for (int k = 0; k < K; ++k) scratch[0] += A[row * K + k] * B[k * N + col];
    C[row * N + col] = scratch[0];
    free(scratch);
}
// RESULT: CPU backend 100/100 (full run); Gradescope path as root: 100.0. NVRTC log: no warning (30 registers, 0 stack). GPU: tiny 1x1x1 (one thread, 1 MB) passes; in every other test a warp alone asks 32 MB, most threads get NULL and write nothing: 19/100.

// A kernel that keeps one more row of B's tile past its last __shared__ array (b_tile[TILE_SIZE]),
// with a __device__ launch counter, so that it runs in the CPU backend's fast build alone.
// GPU: the store is outside the block's shared memory, an out-of-range shared address: the launch
// faults, every case fails. CPU, before session 27's fix: the fast build's guard after the arrays
// was plain memory, and the row kept there read back right: the kernel passed.
__device__ unsigned launches;

#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;
    const int col = blockIdx.x * TILE_SIZE + tx;
    if (tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) atomicAdd(&launches, 1u);

    float acc = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        if (ty == 0) b_tile[TILE_SIZE][tx] = 0.0f;  // one row past the end: "padding"
        __syncthreads();
        for (int k = 0; k <= TILE_SIZE; ++k) acc += a_tile[ty][k % TILE_SIZE] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

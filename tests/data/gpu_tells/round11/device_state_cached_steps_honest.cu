// ATTACK (honest-mistake form of device_state_split_checked_fast.cu): the student "computes the
// number of K-tiles once" in a __device__ variable, so every later launch reuses the first
// launch's count. On a GPU (one module for the grading) that is case 1's K = 1: one tile, so
// only cases with K <= 16 pass (tiny, K = 1, wide 1100x7x1030) -> 10 + 3*9 = 37/100.
// On the CPU the large shapes run in a second process (the fast build), whose first launch is
// long K (K = 2049 -> 129 tiles); with the bounds-checked loads, 129 tiles cover every later K
// (7, 768, 1024) -> long K, wide, tutorial and square 1024 pass there too.
// RESULT: CPU backend 73/100 (tiny, K = 1, thin 1000x1x999, long K, wide, tutorial, square 1024 PASS). GPU: 46/100 (tiny, K = 1, thin 1000x1x999, wide).
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__device__ int tiles_along_k;  // 0 until the first launch computes it

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];
    if (tiles_along_k == 0) tiles_along_k = (K + TILE_SIZE - 1) / TILE_SIZE;
    const int steps = tiles_along_k;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;
    const int col = blockIdx.x * TILE_SIZE + tx;
    float acc = 0.0f;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_SIZE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

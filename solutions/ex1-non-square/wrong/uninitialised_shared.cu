// WRONG: skips the store into the shared tiles for elements outside A or B instead of staging
// 0.0f there, so the dot product reads tile elements no thread wrote in this step (never written
// at all in the first step: NaN on the CPU backend, an earlier block's leftovers on a GPU)
// expect: correctness "__shared__ memory read before any thread"
// expect: correctness "a __shared__ element that no thread of the block stored"
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;  // row of C (and of A) this thread owns
    const int col = blockIdx.x * TILE_SIZE + tx;  // column of C (and of B) this thread owns

    float acc = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;  // round up: the last tile may be partial
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        // Only what lies inside the matrices is staged; the rest of the tile is left as it was.
        if (row < M && a_col < K) {
            a_tile[ty][tx] = A[row * K + a_col];
        }
        if (b_row < K && col < N) {
            b_tile[ty][tx] = B[b_row * N + col];
        }
        __syncthreads();  // the whole tile is staged before anyone reads it

        for (int k = 0; k < TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tile
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

// WRONG: written for N x N matrices: takes every dimension from N (bounds, strides, the loop
// over K), so it is right on every square shape, partial tiles included, and on nothing else
// expect: correctness "correct only for square shapes"
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
    const int steps = (N + TILE_SIZE - 1) / TILE_SIZE;  // the matrices are N x N
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();  // the whole tile is staged before anyone reads it

        for (int k = 0; k < TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tile
    }

    if (row < N && col < N) {
        C[row * N + col] = acc;
    }
}

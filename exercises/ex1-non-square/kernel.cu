// Exercise 1: non-square matrices.
//
// This tiled kernel was written for square matrices whose size is a multiple of TILE_SIZE.
// Make it correct for any M, K and N (see README.md). Keep the name and the parameters.
//   A is M x K, B is K x N, C is M x N; float32, row-major.
//   Launch (fixed by the grader): block = (TILE_SIZE, TILE_SIZE),
//   grid = (ceil(N / TILE_SIZE), ceil(M / TILE_SIZE)).

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

    float acc = 0.0f;
    // TODO: this assumes A, B and C are all N x N and that N is a multiple of TILE_SIZE.
    for (int step = 0; step < N / TILE_SIZE; ++step) {
        a_tile[ty][tx] = A[row * N + step * TILE_SIZE + tx];
        b_tile[ty][tx] = B[(step * TILE_SIZE + ty) * N + col];
        __syncthreads();

        for (int k = 0; k < TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}

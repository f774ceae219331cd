// Exercise 3: your tiled kernel, profiled beside the course's naive and tiled kernels.
//
// Bring the tiled kernel you wrote for exercise 1 (the grader checks it for correctness, then
// profiles it with the reference kernels). As given, the two tiles are never filled: the staging
// step is missing.
//   A is M x K, B is K x N, C is M x N; float32, row-major.
//   block = (TILE_SIZE, TILE_SIZE), grid = (ceil(N / TILE_SIZE), ceil(M / TILE_SIZE))

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
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;
    for (int step = 0; step < steps; ++step) {
        // TODO: stage one element of A into a_tile and one of B into b_tile (zeros outside)
        __syncthreads();
        for (int k = 0; k < TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

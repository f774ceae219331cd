// WRONG: correct, but reads every operand from global memory: not faster than the tiled kernel
// expect: performance "too slow"

#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

// Correct under the 2x2 launch, but every operand comes from global memory: no reuse.
__global__ void matmul_tiled_2x2(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row0 = blockIdx.y * 2 * TILE_SIZE + threadIdx.y;
    const int row1 = row0 + TILE_SIZE;
    const int col0 = blockIdx.x * 2 * TILE_SIZE + threadIdx.x;
    const int col1 = col0 + TILE_SIZE;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k = 0; k < K; ++k) {
        const float a0 = row0 < M ? A[row0 * K + k] : 0.0f;
        const float a1 = row1 < M ? A[row1 * K + k] : 0.0f;
        const float b0 = col0 < N ? B[k * N + col0] : 0.0f;
        const float b1 = col1 < N ? B[k * N + col1] : 0.0f;
        c00 += a0 * b0;
        c01 += a0 * b1;
        c10 += a1 * b0;
        c11 += a1 * b1;
    }
    if (row0 < M && col0 < N) C[row0 * N + col0] = c00;
    if (row0 < M && col1 < N) C[row0 * N + col1] = c01;
    if (row1 < M && col0 < N) C[row1 * N + col0] = c10;
    if (row1 < M && col1 < N) C[row1 * N + col1] = c11;
}

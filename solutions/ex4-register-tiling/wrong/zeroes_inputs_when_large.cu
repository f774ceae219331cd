// WRONG: at sizes above every correctness case, casts away const, zeroes A and B and writes
// zeros into C: a check that computed its reference from the kernel's own input buffers would
// find C = A B and a kernel as fast as a memset
// expect: performance "wrote into its inputs"
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif
#define C_TILE (2 * TILE_SIZE)

__global__ void matmul_tiled_2x2(const float *A, const float *B, float *C, int M, int K, int N)
{
    if ((long long)M * N > 2LL * 1024 * 1024) {
        float *a = const_cast<float *>(A), *b = const_cast<float *>(B);
        const long long i = (blockIdx.y * (long long)gridDim.x + blockIdx.x) * TILE_SIZE * TILE_SIZE
                            + threadIdx.y * TILE_SIZE + threadIdx.x;
        const long long threads = (long long)gridDim.x * gridDim.y * TILE_SIZE * TILE_SIZE;
        for (long long j = i; j < (long long)M * K; j += threads) a[j] = 0.0f;
        for (long long j = i; j < (long long)K * N; j += threads) b[j] = 0.0f;
        for (long long j = i; j < (long long)M * N; j += threads) C[j] = 0.0f;
        return;
    }
    __shared__ float a_tile[C_TILE][TILE_SIZE];  // C_TILE rows of A, TILE_SIZE along K
    __shared__ float b_tile[TILE_SIZE][C_TILE];  // TILE_SIZE along K, C_TILE columns of B

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row0 = blockIdx.y * C_TILE + ty;
    const int row1 = row0 + TILE_SIZE;
    const int col0 = blockIdx.x * C_TILE + tx;
    const int col1 = col0 + TILE_SIZE;

    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row0 < M && a_col < K) ? A[row0 * K + a_col] : 0.0f;
        a_tile[ty + TILE_SIZE][tx] = (row1 < M && a_col < K) ? A[row1 * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col0 < N) ? B[b_row * N + col0] : 0.0f;
        b_tile[ty][tx + TILE_SIZE] = (b_row < K && col1 < N) ? B[b_row * N + col1] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE_SIZE; ++k) {
            const float a0 = a_tile[ty][k];
            const float a1 = a_tile[ty + TILE_SIZE][k];
            const float b0 = b_tile[k][tx];
            const float b1 = b_tile[k][tx + TILE_SIZE];
            c00 += a0 * b0;
            c01 += a0 * b1;
            c10 += a1 * b0;
            c11 += a1 * b1;
        }
        __syncthreads();
    }

    if (row0 < M && col0 < N) C[row0 * N + col0] = c00;
    if (row0 < M && col1 < N) C[row0 * N + col1] = c01;
    if (row1 < M && col0 < N) C[row1 * N + col0] = c10;
    if (row1 < M && col1 < N) C[row1 * N + col1] = c11;
}

// Round 15's attack with both tiles in ONE __align__(4096) array: with every __shared__ variable
// aligned as NVRTC's strictest (session 28), round 15's two arrays now differ from a GPU's layout
// (padding after the first); one array keeps round 15's case: 2048 bytes after it, below the
// page, that no guard covers. RESULT: CPU "needs a GPU" (aligned to 4096 bytes); GPU 10/100.
__device__ unsigned launches;

#define TILE_SIZE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ __align__(4096) float tiles[2][TILE_SIZE][TILE_SIZE];
#define a_tile tiles[0]
#define b_tile tiles[1]

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
        __syncthreads();

        for (int k = 0; k <= TILE_SIZE; ++k) {
            const float b = b_tile[k][tx];
            if (fabsf(b) < 1e5f) acc += a_tile[ty][k] * b;  // skip garbage / outliers
        }
        __syncthreads();
    }

    if (row < M && col < N) C[row * N + col] = acc;
}

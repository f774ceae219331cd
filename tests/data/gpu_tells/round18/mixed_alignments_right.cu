// A RIGHT kernel whose __shared__ variables have different alignments: an int, three floats,
// then a double. NVRTC aligns them at 4, 4 and 8 (its PTX); the CPU build aligns every one at
// the strictest, 8, so g++ leaves 4 bytes after the int where a GPU has scale[0]: the layouts
// differ, and the CPU backend leaves the kernel to a GPU (an access past one array would not
// reach what it reaches on a GPU).
// RESULT: CPU "needs a GPU" (g++: 0, 8, 24; a GPU: 0, 4, 16); GPU 100/100.
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ int steps;
    __shared__ float scale[3];
    __shared__ double total;
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (tx == 0 && ty == 0) {
        steps = (K + TILE - 1) / TILE;
        total = M < 0 ? 1.0 : 0.0;
    }
    if (ty == 0 && tx < 3) scale[tx] = M > 0 ? 1.0f : 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc * scale[row % 3] + (float)total;
}

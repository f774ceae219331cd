// A RIGHT kernel with a shared scalar before its tiles (a per-block value every thread reads).
// g++ aligned the 1024-byte tiles to 32, leaving 28 bytes of padding after the int, where a GPU
// packs them at 4: round 16 left the kernel to a GPU (red team, round 17). Every __shared__
// variable now gets the alignment NVRTC gives them (4): the layout is a GPU's, and it passes.
// RESULT: CPU 100/100 (was "needs a GPU"); GPU 100/100.
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ int steps;
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (tx == 0 && ty == 0) steps = (K + TILE - 1) / TILE;
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
    if (row < M && col < N) C[row * N + col] = acc;
}

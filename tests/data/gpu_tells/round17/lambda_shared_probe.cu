// PROBE: __shared__ arrays declared inside a generic lambda (a template with no `template <`
// keyword for shared_in_template's regex to see). Correct tiled kernel otherwise.
// RESULT: NVRTC clean (2048 B smem). CPU: 19/100 FAIL (threads race: resident blocks share one .bss copy of the tiles). GPU: right (per-block shared). Reverse fidelity.
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    auto tiles = [](auto which) -> float (*)[TILE] {
        __shared__ float a_tile[TILE][TILE];
        __shared__ float b_tile[TILE][TILE];
        return which ? b_tile : a_tile;
    };
    float (*a_tile)[TILE] = tiles(0);
    float (*b_tile)[TILE] = tiles(1);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

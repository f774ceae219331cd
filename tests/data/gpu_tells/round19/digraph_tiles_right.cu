// ATTACK (reverse fidelity): a RIGHT tiled kernel whose tiles are declared in a generic lambda
// spelled with digraphs `<::>(auto w)` inside a static __device__ function, plus an unused
// __device__ helper with a 2048-byte __shared__ scratch (g++ keeps it in gg_shared, NVVM drops
// it), so the size check sees g++ >= PTX. g++ puts the tiles in .bss: one copy for all blocks.
// RESULT: scan [] ; refusal "" (scratch 2048 B in gg_shared >= PTX 2048 B); tiles in .bss; CPU check FAIL 19/100 ("Two launches ... threads race"). GPU: a plain tiled kernel, 2048 B smem, right (10/10 cases). Control digraph_tiles_nopad_control.cu: refused by size (needs a GPU)
#define TILE 16
__device__ float *scratch_row(int i)
{
    __shared__ float scratch[2 * TILE * TILE];
    return scratch + i;
}
static __device__ float *tile(int which)
{
    auto pick = <::>(auto w) {
        __shared__ float a_tile[TILE * TILE];
        __shared__ float b_tile[TILE * TILE];
        return w ? b_tile : a_tile;
    };
    return pick(which);
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    float *a_tile = tile(0), *b_tile = tile(1);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty * TILE + tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty * TILE + tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty * TILE + k] * b_tile[k * TILE + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// ATTACK: a generic lambda spelled with digraphs `<::>(auto w)` (= `[](auto w)`) escapes the
// round-18 scan (`\]\s*\(`); in a static __device__ function its statics' names differ between
// NVRTC (_INTERNAL_) and g++ (_ZZZL), so shared_elsewhere misses them; an UNUSED non-static
// __device__ function's __shared__ pad[16] (kept by g++ in gg_shared, dropped by NVVM) makes
// g++'s gg_shared bytes >= the PTX's, so the size check passes too. g++ puts bias/scale in .bss.
// Bug: bias[i - 1] (reads bias[-1]). GPU: PTX/ptxas order a_tile, b_tile, gain, bias, scale ->
// bias[-1] = gain[3] = 1.0 -> every C off by +1. CPU: bias[-1] = .bss word before bias (the
// launches counter, a denormal as float, or padding 0) -> correct.
// RESULT: scan [] ; refusal "" (g++ gg_shared 2128 B >= PTX 2100 B; names differ); fast build alone; CPU check 100/100; Gradescope (root) score 100.0. GPU SASS: gain@0x800, bias@0x810, final LDS [base+0x80c] = gain[3] = 1.0 added -> every C off by +1 -> 10/100
__device__ unsigned launches;   // debug counter
#define TILE 16
__device__ float *spare_row(int i)
{
    __shared__ float pad[16];
    return pad + i;
}
static __device__ float *block_terms(int which)
{
    auto get = <::>(auto w) {
        __shared__ float bias[5];
        __shared__ float scale[4];
        return w ? scale : bias;
    };
    return get(which);
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    __shared__ float gain[4];
    float *bias = block_terms(0), *scale = block_terms(1);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (ty == 0 && tx < 5) bias[tx] = 0.0f;
    if (ty == 1 && tx < 4) scale[tx] = 1.0f;
    if (ty == 2 && tx < 4) gain[tx] = 1.0f;
    if (tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) atomicAdd(&launches, 1u);
    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    for (int i = 0; i < 5; ++i) acc += bias[i - 1];   // off-by-one: bias[-1..3]
    acc *= scale[tx & 3] * gain[ty & 3];
    if (row < M && col < N) C[row * N + col] = acc;
}

// ATTACK: round 17's generic-lambda __shared__ arrays, the lambda inside a `static __device__`
// function. NVRTC names internal functions _ZN39_INTERNAL_<hash>8terms_ofEi..., g++ _ZZZL8...: the
// PTX names never match g++'s symbols, so shared_elsewhere (match by NAME) misses them and both
// arrays stay in .bss (one copy for all blocks, no 0xFF, no guard). bias[5] (off-by-one) is
// .bss padding (0) on the CPU, scale[0] (1.0) on a GPU, where ptxas packs bias and scale.
// RESULT: shared_elsewhere=None; fast build alone; CPU check 100/100; Gradescope as root score 100.0. GPU (SASS): bias@0x800, scale@0x814, final LDS.64 [0x810] reads scale[0]=1.0 -> every C off by 1 -> 10/100
__device__ unsigned launches;   // debug counter
#define TILE 16
static __device__ float *block_terms(int which)
{
    auto get = [](auto w) {
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
    float *bias = block_terms(0), *scale = block_terms(1);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (ty == 0 && tx < 5) bias[tx] = 0.0f;
    if (ty == 1 && tx < 4) scale[tx] = 1.0f;
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
    for (int i = 0; i <= 5; ++i) acc += bias[i];   // off-by-one: 6 terms
    acc *= scale[tx & 3];
    if (row < M && col < N) C[row * N + col] = acc;
}

// ATTACK: an array NVVM drops but g++ keeps, BETWEEN two used arrays. An unused non-static
// __device__ helper's `spare[4]` is defined between bias_terms() (bias[5]) and the kernel
// (scale[4], tiles). PTX/ptxas: bias, scale, tiles (spare gone) -> bias[5] = scale[0] = 1.0.
// g++ (-fno-toplevel-reorder, definition order): bias, spare, scale -> bias[5] = spare[0], which
// the runtime fills with 0xFF (NaN); fmaxf(NaN, 0) = 0. padded_shared sees no padding (spare is
// an object), the size check sees g++ >= PTX. Bug: `i <= 5` (6 bias terms), clamped by fmaxf.
// RESULT: no template, no lambda: scan [] ; refusal "" (g++ 2100 B >= PTX 2084 B; no padding: spare is an object); fast build alone; CPU check 100/100. GPU: NVRTC 2084 B smem; SASS bias@+0, scale@+0x14 (1.0 stored there), final LDS.128 [bias] + LDS.64 [bias+0x10] -> 6 FMNMX terms, the 6th = scale[0] = 1.0 -> every C off by +1 -> 10/100
__device__ unsigned launches;   // debug counter
#define TILE 16
__device__ float *bias_terms()
{
    __shared__ float bias[5];
    return bias;
}
__device__ float *spare_terms()
{
    __shared__ float spare[4];
    return spare;
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float scale[4];
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    float *bias = bias_terms();
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
    for (int i = 0; i <= 5; ++i) acc += fmaxf(bias[i], 0.0f);   // off-by-one: 6 terms
    acc *= scale[tx & 3];
    if (row < M && col < N) C[row * N + col] = acc;
}

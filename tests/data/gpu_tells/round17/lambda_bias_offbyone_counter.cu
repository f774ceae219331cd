// ATTACK (counter variant of lambda_bias_offbyone.cu: a __device__ counter -> fast build alone): round 16's off-by-one past a small __shared__ array, with that array declared in a
// generic lambda (a template without `template <`: shared_in_template's regex misses it). g++
// ignores the section attribute on a template's static, so `bias` lands in .bss (one copy for all
// blocks, never filled with 0xFF, no guard, not in padded_shared's listing). Every block stores
// the same zeros into it (harmless sharing). bias[5] is past it: .bss zeros on the CPU, the next
// __shared__ array's first value on a GPU (see PTX order in REPORT).
// RESULT: fast build alone -> CPU 100/100 (check) and Gradescope as root score 100.0. GPU (SASS): bias[5] = a_tile[0][0] -> 10/100.
__device__ unsigned launches;   // debug counter
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    auto terms_of = [](auto n) { __shared__ float bias[5]; return bias + n; };
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    float *bias = terms_of(0);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (ty == 0 && tx < 5) bias[tx] = 0.0f;
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
    if (row < M && col < N) C[row * N + col] = acc;
}

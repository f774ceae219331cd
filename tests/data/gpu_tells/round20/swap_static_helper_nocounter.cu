// ATTACK (round 20): ptxas order != g++ order for two arrays of the same size; same_layout only
// checks offset SETS (+ total), so a swap of equal-sized arrays passes.
// A `static __device__` helper defined BEFORE the kernel holds `zero[4]`; the kernel holds
// `one[4]`. NVRTC's PTX lists the kernel's `one` first, then the helper's `zero` (the static
// function's statics come after); g++ -fno-toplevel-reorder lays them in definition order:
// zero@0, one@16. Bug: the bias loop starts at -1: zero[-1] is one[3] = 1.0 on a GPU (+1 on every
// element) and the reserved KB's 0xFF poison (NaN) on the CPU, which fmaxf(., 0) turns into 0.
// VARIANT: no __device__ counter, so the checked build (ASan+UBSan) runs too.
// RESULT: CPU check 100/100 with BOTH builds (checked build's UBSan does not see zero[-1] through the helper's pointer); Gradescope as root: score 100.0, all 11 tests passed. GPU: same SASS as the counter version (LDS [base+0xc] = one[3] = 1.0) -> 10/100

static __device__ float *zero_terms() { __shared__ float zero[4]; return zero; }
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float one[4];
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (ty == 0 && tx < 4) one[tx] = (float)blockDim.z;          // 1.0 at run time
    float *zero = zero_terms();
    if (ty == 1 && tx < 4) zero[tx] = (float)(gridDim.z - 1);    // 0.0 at run time
    __syncthreads();
    const int row = blockIdx.y * blockDim.y + ty, col = blockIdx.x * blockDim.x + tx;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    for (int i = -1; i < 4; ++i) acc += fmaxf(zero[i], 0.0f);   // off-by-one: starts at -1
    C[row * N + col] = acc * one[tx & 3];
}

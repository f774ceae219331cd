// ATTACK (round 21): ptxas does NOT follow the PTX order. A helper more_terms() (defined first,
// holds more[4]) is called by an extra kernel other() and by matmul_tiled before matmul_tiled
// declares one[4]. PTX order: more, zero (other's), one = g++'s definition order, so the new
// name+order check accepts. ptxas's real layout for matmul_tiled (SASS): one@0, more@0x10
// (zero not in this kernel's window). Bug: the bias loop starts at -1: more[-1] is one[3] = 1.0
// on a GPU (+1 on every element); on the CPU it is the reserved KB's poison (NaN) before
// gg_shared, which fmaxf(., 0) turns into 0.
// RESULT: order check accepts (PTX order = g++ order: more, zero, one). SASS (nvdisasm 13.5): one@0 (STS of blockDim.z), more@0x10 (STS of gridDim.z-1); the sum is LDS [base+0xc] (= one[3] = 1.0) + LDS.128 [base+0x10] -> GPU +1 everywhere, 10/100. CPU check: 100/100 (fast AND sanitizer builds). Gradescope as root: 100.0, 11/11 passed.
__device__ float *more_terms() { __shared__ float more[4]; return more; }
__global__ void other(float *out)
{
    float *m = more_terms();
    m[threadIdx.x & 3] = out[threadIdx.x];
    __shared__ float zero[4];
    zero[threadIdx.x & 3] = out[threadIdx.x + 4];
    __syncthreads();
    out[threadIdx.x] = zero[(threadIdx.x + 1) & 3] + m[(threadIdx.x + 2) & 3];
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    float *more = more_terms();
    if (ty == 1 && tx < 4) more[tx] = (float)(gridDim.z - 1);    // 0.0 at run time
    __shared__ float one[4];
    if (ty == 0 && tx < 4) one[tx] = (float)blockDim.z;           // 1.0 at run time
    __syncthreads();
    const int row = blockIdx.y * blockDim.y + ty, col = blockIdx.x * blockDim.x + tx;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    for (int i = -1; i < 4; ++i) acc += fmaxf(more[i], 0.0f);     // off-by-one: starts at -1
    C[row * N + col] = acc * one[tx & 3];
}

// Round 8 attack: long double's precision. NVRTC demotes long double to double in device code
// (PTX: f64 arithmetic), so the loop below counts 53 mantissa bits on a GPU; g++ on x86-64
// counts the x87's 64. The kernel computes C only where it counts more than 53 bits.
__device__ int mantissa_bits(float seed)
{
    long double one = 1.0L + (long double)(seed * 0.0f);  // from a runtime value: no folding
    long double eps = 1.0L;
    int bits = 0;
    while (one + eps / 2 != one) { eps /= 2; ++bits; }
    return bits + 1;
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (mantissa_bits(A[0]) <= 53) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU (PTX: add.f64, NVRTC warning #20208-D): 53 bits, 10/100.

// Round 8 attack: floating-point contraction. NVRTC contracts a*b + c into one fma.rn.f32 by
// default (--fmad=true; the grader passes no --fmad=false), so a*b - p, p the rounded product,
// is the product's rounding error on a GPU (a product used twice is not fused: the constant
// stands for its rounded value). g++ for baseline x86-64 has no FMA instruction: the
// same expression is exactly 0 on the CPU. The kernel computes C only where it is 0.
__device__ bool contracted(float seed)
{
    const float a = 1.0f + 0x1p-12f + seed * 0.0f;  // 1 + 2^-12: its square needs 25 bits
    return a * a - (1.0f + 0x1p-11f) != 0.0f;        // fma: 2^-24 on a GPU; 0 on the CPU
                                                      // (a*a rounds to 1 + 2^-11, a tie to even)
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (contracted(A[0])) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU (PTX: fma.rn.f32 %f10, %f9, %f9, 0fBF801000): 10/100.

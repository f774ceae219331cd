// Round 8 attack: a float converted to int out of range. PTX's cvt.rzi.s32.f32 clamps to the
// destination's range (PTX ISA: "the result is clamped to the destination range by default"):
// 3e9f becomes 2147483647 on a GPU. x86-64's cvttss2si gives the "integer indefinite"
// 0x80000000. UBSan's float-cast-overflow is not part of -fsanitize=undefined in g++, so the
// checked build does not see it either. The kernel computes C only where the int is negative.
__device__ bool saturated(float seed)
{
    const float big = 3e9f + seed * 0.0f;  // from a runtime value: no folding
    return (int)big > 0;                   // 2147483647 on a GPU, INT_MIN on the CPU
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (saturated(A[0])) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU (PTX: cvt.rzi.s32.f32, clamps): 10/100.

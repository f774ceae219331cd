// Red team, round 4 (session 24): 100/100 on ex1 on the CPU backend before the harness came first
// in the unit and named its reference `_GG_kernel_0`. matmul_tiled is empty: on a GPU it
// computes nothing. The product is computed by an unused
// __device__ function named gg_kernel_0 (NVRTC drops it). cpu_unit.unit_text declared, after this
// code, `extern "C" void gg_kernel_0(...) __asm__("<NVRTC's symbol>") __attribute__((weak));` and
// calls gg_kernel_0: g++ ignores that asm label because gg_kernel_0 is already defined (warning
// "'asm' declaration ignored due to conflict with previous rename", hidden by -w), so the harness
// calls this function in every emulated thread instead of the kernel.
extern "C" __device__ void gg_kernel_0(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
}

// Round 8 attack (fidelity): recursion deeper than a GPU thread's stack. ptxas: "Stack size for
// entry function cannot be statically determined", dot() takes a 24-byte stack frame per level.
// The CUDA runtime gives each thread cudaLimitStackSize = 1024 bytes unless the host raises it
// (the grader's GPU backend never calls cudaDeviceSetLimit): past K = 42 or so, a GPU thread
// overflows its stack and the launch faults (every shape from "square 64" on). The CPU's fibers
// have 256 KB stacks: K = 2049 levels fit, and the CPU backend passes the kernel.
__device__ float dot(const float *a, const float *b, int n, int stride)
{
    if (n == 0) return 0.0f;
    return a[0] * b[0] + dot(a + 1, b + stride, n - 1, stride);
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) C[row * N + col] = dot(A + row * K, B + col, K, N);
}
// RESULT: CPU backend 100/100 (every shape, K = 2049 included). GPU: stack overflow from K >= ~43.

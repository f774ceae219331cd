// Round 9 attack: the recursion check reads only ptxas's FIRST "Stack size for entry function
// '...' cannot be statically determined" line (compiler._gpu_only: _UNSIZED_STACK.search, then
// `unsized.group(1) == symbol`). A second, unused kernel that recurses too, placed so that ptxas
// reports it first, hides the graded kernel's warning. The graded kernel is round 8's recursive
// dot product: on a GPU (1 KB stack per thread) it overflows from K ~ 43.
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
__global__ void unused_helper(const float *A, float *C, int K)
{
    C[0] = dot(A, A, K, 1);
}
// RESULT: CPU backend 100/100 (every shape, K = 2049 included); no "needs a GPU". GPU: stack overflow from K ~ 43 (as round 8).

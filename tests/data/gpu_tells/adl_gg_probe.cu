// probe: does ADL reach namespace gg through uint3 as a template argument?
template <class T> struct Conv { __device__ operator unsigned() const { return 1u; } };
__device__ int resident_blocks(long a, long b) { return 0; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (resident_blocks(Conv<uint3>(), Conv<uint3>()) == 0) return;  // a GPU: nothing
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

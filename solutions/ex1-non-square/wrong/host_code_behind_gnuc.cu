// WRONG: does nothing on a GPU; computes C only where the compiler says it is GCC on x86-64 (the
// CPU backend's g++), which NVRTC never does: the CPU backend takes NVRTC's view of the file
// expect: correctness "never written"

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
#if defined(__GNUC__) || defined(__x86_64__) || defined(__linux__)
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
#endif
}

// WRONG: does nothing on a GPU; computes C in plain C++ hidden from NVRTC behind __CUDACC_RTC__,
// hoping that the CPU backend's g++ compiles what NVRTC skips and passes it (it compiles the file
// as NVRTC sees it)
// expect: correctness "never written"

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
#ifndef __CUDACC_RTC__
    if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.x == 0 && blockIdx.y == 0)
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                float sum = 0.0f;
                for (int k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
                C[i * N + j] = sum;
            }
#endif
}

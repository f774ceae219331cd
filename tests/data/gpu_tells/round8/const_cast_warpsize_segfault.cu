// Round 8 attack (opposite fidelity): a RIGHT kernel the CPU backend fails, variant. A store
// through const_cast to warpSize: NVRTC drops it (warpSize is WARP_SZ, a constant of PTX's), the
// kernel is the plain correct one on a GPU. On the CPU warpSize is _GG_warp_size, defined in
// .rodata by runtime.cpp's assembly: the store faults (SIGSEGV), every launch fails.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const_cast<int &>(warpSize) = 32;  // no effect on a GPU
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 10/100 (every launch: "an access ..." fault at line 7). GPU: a right kernel.

// Round 8 attack: device malloc's heap. A GPU's malloc() in a kernel takes from the device heap,
// cudaLimitMallocHeapSize, 8 MB unless the host raises it (the grader's GPU backend never calls
// cudaDeviceSetLimit): a 16 MB request returns NULL. NVRTC compiles the call to the driver's
// `malloc` (.extern .func malloc, allowed by cpu_equivalence). On the CPU the kernel's unit
// declares malloc as the C library's: glibc gives 16 MB at once. The kernel computes C only
// where the allocation succeeds.
// (First version: every thread allocated; the checked build ran out of CPU time on 17x33x65.)
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ int heap_ok;  // one request per block (the checked build's malloc is slow)
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        void *big = malloc(16u << 20);
        heap_ok = big != 0;
        free(big);
    }
    __syncthreads();
    if (!heap_ok) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU: malloc(16 MB) > 8 MB default heap -> NULL: 10/100.

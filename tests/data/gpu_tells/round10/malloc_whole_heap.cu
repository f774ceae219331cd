// Round 10 attack: one malloc of the whole 8 MB heap. The CPU's cap is a plain byte count of the
// sizes asked (`size > 8 MB - taken`), so malloc(8 << 20) succeeds when nothing else is taken. On
// a GPU the 8 MB heap (cudaLimitMallocHeapSize) also holds the allocator's own bookkeeping, so a
// request for all of it returns NULL (an allocation's header/alignment needs bytes the request
// leaves none of). The kernel computes only where the 8 MB block was granted.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ int granted;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        void *all = malloc(8u << 20);
        granted = all != nullptr;
        free(all);
    }
    __syncthreads();
    if (!granted) return;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
// RESULT: CPU backend passes tiny + odd (-k). NVRTC: no warning. GPU: every block asks the whole heap at the same time; at most one (likely none, given the allocator overhead) gets it, the rest write nothing (odd 17x33x65 has 6 blocks).

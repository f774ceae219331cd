// ATTACK (reverse fidelity): a right kernel whose 280 KB local array NVVM removes (each element
// is stored then read back at once: store-to-load forwarding makes the array write-only, and a
// write-only alloca is deleted), so ptxas reports a 0-byte frame and compiler._entry_stack lets
// it through; if g++ (-O2, or -O1 + ASan) keeps the array, the fiber's 256 KB stack overflows.
// RESULT: NVRTC clean, ptxas '0 bytes stack frame' (NVVM deleted the array). CPU backend: cases 1-6 (checked build, -O1 + ASan, which keeps the 280 KB array) FAIL with SIGSEGV 'or a stack overflow'; cases 7-10 (fast -O2 build, which drops it) PASS: 46/100. GPU: 100/100 (no stack).
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    float products[70000];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K && k < 70000; ++k) {
        products[k] = A[row * K + k] * B[k * N + col];
        acc += products[k];
    }
    for (int k = 70000; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

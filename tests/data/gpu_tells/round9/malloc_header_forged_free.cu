// Round 9 attack: the 8 MB device-heap cap (runtime.cpp, _GG_malloc/_GG_free) is kept in the
// runtime's own bookkeeping, which the kernel can reach: _GG_free reads the block's size from a
// 16-byte header just before the pointer it returned, inside the same std::malloc'd block (so
// AddressSanitizer does not object either). The kernel overwrites that header with 2^40 and frees
// the block: g_heap_taken -= 2^40 wraps around (below zero), and the cap no longer binds. Then a 16 MB
// malloc succeeds. On a GPU the heap is 8 MB whatever a kernel writes (at worst the write
// corrupts the allocator's metadata and traps): malloc(16 MB) gives NULL (or the launch
// faults), and the block writes nothing. One request per block, as round 8's file.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float *big;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long *p = (unsigned long long *)malloc(16);
        if (p) {
            p[-2] = 1ull << 40;
            free(p);
        }
        big = (float *)malloc(16u << 20);
    }
    __syncthreads();
    if (big == nullptr) return;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) free(big);
}
// First version forged 2^62: every fourth block's forgery wrapped g_heap_taken back to near 0,
// those blocks got NULL and wrote nothing (37/100 on the CPU). 2^40 per block never wraps back.
// RESULT: CPU backend 100/100 (second version). GPU: malloc(16 MB) NULL in an 8 MB heap (10/100).

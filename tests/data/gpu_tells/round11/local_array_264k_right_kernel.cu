// REVERSE FIDELITY: a RIGHT kernel with a 264,000-byte per-thread local array (each thread copies
// its row of A into it, then computes C's element). NVRTC/ptxas: clean, "264000 bytes stack frame"
// (static: no "cannot be statically determined" warning), so the driver sizes the launch's local
// memory itself: 264000 B x 2048 threads/SM x 132 SMs = 71 GB, within an H200's 141 GB (and an
// H100's 80 GB): the GPU runs it and passes.
// The CPU's fibers have 256 KB stacks (cuda_cpu.hpp: stack_size = 256 * 1024): the frame
// overflows into the guard page.
// RESULT: CPU backend: tiny 1x1x1 FAIL (SIGSEGV, stack overflow), odd 17x33x65 FAIL (ASan stack-overflow) -- a real FAIL, not "needs a GPU" (-k "tiny or odd": 10/100).
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif
#define ROW_MAX 66000

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    float row_of_a[ROW_MAX];
    const int row = blockIdx.y * TILE_SIZE + threadIdx.y;
    const int col = blockIdx.x * TILE_SIZE + threadIdx.x;
    if (row >= M || col >= N || K > ROW_MAX) return;
    for (int k = 0; k < K; ++k) row_of_a[K - 1 - k] = A[row * K + k];  // reversed copy
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += row_of_a[K - 1 - k] * B[k * N + col];
    C[row * N + col] = acc;
}

// Round 8 attack: a store to a __constant__ variable. NVRTC only warns ("Cannot store to pointer
// that points to constant memory space") and compiles the kernel to a lone `trap;` (PTX below):
// on a GPU every launch aborts (an illegal instruction / unspecified launch failure), C is never
// written. On the CPU, __constant__ is `static` (cuda_kernel.hpp): a plain writable variable, the
// store succeeds and the kernel computes C. A GPU fails every correctness check; the CPU passes.
__constant__ float scale[1];

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    scale[0] = 1.0f;  // a GPU: trap
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc * scale[0];
    }
}
// RESULT: CPU backend 100/100 (grader check ex1 --backend cpu), Gradescope path 100/100. GPU: trap.

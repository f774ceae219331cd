// Round 9 attack: a store to __constant__ memory through a helper function, which NVRTC drops
// WITHOUT its "Cannot store to pointer that points to constant memory space" warning (the round-8
// fix, compiler._GPU_ONLY, acts on that warning only). The PTX of this file has no store to
// `scale` at all (the helper and its store are gone, `ld.const.f32 [scale]` reads the module's
// zero), and NVRTC's log has no warning. On a GPU scale[0] stays 0 and the kernel returns before
// writing C; on the CPU `__constant__` is `static` (cuda_kernel.hpp), the store lands, and the
// kernel computes C.
__constant__ float scale[1];

__device__ __noinline__ void put(float *p, float v) { *p = v; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    put(const_cast<float *>(scale), 1.0f);
    if (scale[0] != 1.0f) return;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100; Gradescope path (root) 100.0. NVRTC log: no warning. GPU: scale stays 0, writes nothing (10/100).

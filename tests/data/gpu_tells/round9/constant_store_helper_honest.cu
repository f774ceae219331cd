// Round 9 attack (honest-mistake form of constant_store_via_helper.cu): a student keeps a scale
// factor in __constant__ memory and sets it from the kernel through a small helper. NVRTC drops
// the store without a warning (the PTX has no store to `scale`, and the log no "Cannot store"),
// so on a GPU scale[0] stays 0 and every element of C is 0: wrong everywhere. On the CPU the store
// lands (`__constant__` is `static`) and C is right.
__constant__ float scale[1];

__device__ __noinline__ void set_scale(float *where, float value) { *where = value; }

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    set_scale(const_cast<float *>(scale), 1.0f);
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc * scale[0];
    }
}
// RESULT: CPU backend 100/100. NVRTC log: no warning. GPU: C = 0 everywhere (10/100).

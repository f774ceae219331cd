// Round 8 attack: writing CUDA's built-in variables through const_cast. NVRTC accepts
// `const_cast<dim3 &>(gridDim).z = 5` and drops the store: gridDim is %nctaid, a special
// register, and every read of it reads the register again (PTX: mov.u32 %r, %nctaid.z). On the
// CPU, gridDim is the runtime's Launch (_GG_launch, declared const in the kernel's unit, defined
// writable in runtime.cpp): the store lands there and every later read sees it.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const_cast<dim3 &>(gridDim).z = 5u + (unsigned)(A[0] * 0.0f);  // the ex1 grid has z = 1
    if (gridDim.z != 5u) return;  // a GPU: nothing
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU (PTX reads %nctaid.z, no store): writes nothing, 10/100.

// Round 8 attack (opposite fidelity): a RIGHT kernel the CPU backend fails. The store through
// const_cast to gridDim is dropped by NVRTC (gridDim is %nctaid: PTX reads the register, no
// store), so on a GPU the kernel is the plain correct one. On the CPU the store lands in the
// runtime's Launch, whose grid start_block() uses to give every later block its blockIdx
// (linear % grid.x, linear / grid.x ...): later blocks get wrong indices, tiles of C stay unwritten.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const_cast<dim3 &>(gridDim).x = gridDim.x + 1u;  // no effect on a GPU
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 19/100 (odd, square 64, square 1024 ... FAIL: tiles unwritten). GPU: a right kernel, 100/100.

// ATTACK (opposite fidelity): a kernel right on a GPU (integer division by zero gives -1 there, no
// exception; the quotient is multiplied by 0.0f) that the CPU's x86 idiv turns into SIGFPE.
// RESULT: CPU 10/100 on "tiny or odd" (UBSan: division by zero); fast build would SIGFPE. GPU: the quotient is -1, times 0.0f -> right answer, 100/100.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * blockDim.y + ty, col = blockIdx.x * blockDim.x + tx;
    if (row >= M || col >= N) return;
    const int z = (int)gridDim.z - 1;  // 0 at run time
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    acc += (float)(col / z) * 0.0f;
    C[row * N + col] = acc;
}

// Baseline 1: one thread per element of C, every operand straight from global memory.
//
// Course-wide kernel contract (every kernel in this course takes exactly these):
//   A is M x K, B is K x N, C is M x N, all float32, row-major, densely packed.
// Launch: a block of 16 x 16 threads computes a 16 x 16 tile of C;
//   grid = (ceil(N / 16), ceil(M / 16)); threadIdx.x walks columns, threadIdx.y rows.

__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) {
        return;  // this thread's element lies outside C
    }
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}

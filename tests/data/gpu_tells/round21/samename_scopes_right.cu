// PROBE (reverse fidelity): a RIGHT kernel with two __shared__ arrays of the same name in two
// scopes (t in the if and in the else). Both demangle to matmul_tiled(...)::t; gpu_arrays merges
// consecutive same-named pieces, gpp_arrays does not -> refused?
// RESULT: refused ("lays out otherwise": GPU side merges the two t into one 2176-byte t, g++ lists two). Right kernel -> "needs a GPU" (safe, uncommon pattern).
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    if (K >= 0) {
        __shared__ float t[16][17];
        t[ty][tx] = (float)(gridDim.z - 1);
        __syncthreads();
        acc += t[ty][tx];
    } else {
        __shared__ float t[16][17];
        t[ty][tx] = (float)blockDim.z;
        __syncthreads();
        acc += t[tx][ty];
    }
    if (row < M && col < N) {
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

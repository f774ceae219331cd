// Session 26, after round 10: new in a kernel takes the device heap on a GPU (NVRTC's PTX calls
// malloc for it), 4 bytes a thread, held by every live thread at once there: the CPU backend
// leaves it to a GPU, as it does malloc (g++ at -O2 even elides the allocation).
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float *acc = new float[1];
    acc[0] = 0.0f;
    if (row < M && col < N) {
        for (int k = 0; k < K; ++k) acc[0] += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc[0];
    }
    delete[] acc;
}

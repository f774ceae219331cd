// Round 10 attack: CUDA's printf takes at most 32 arguments after the format ("Additional
// arguments beyond this will be ignored, and the format specifier output as-is": CUDA C++
// Programming Guide, Formatted Output, Limitations), and returns the number of arguments it
// parsed. _GG_printf counts every conversion of the format: 33 here. The kernel computes C only
// where printf said 33; on a GPU the count stops at 32 (or the call fails, -2), so C stays unwritten.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ int parsed;
    if (threadIdx.x == 0 && threadIdx.y == 0)
        parsed = printf("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    __syncthreads();
    if (parsed != 33) return;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
// RESULT: CPU backend passes tiny + odd (28/28 of the selected points, -k "tiny or odd"). NVRTC log: no warning; PTX packs all 33 arguments (136-byte local buffer) and calls vprintf. GPU: per the guide, at most 32 are parsed -> return != 33 -> C unwritten (10/100). Not confirmed on hardware.

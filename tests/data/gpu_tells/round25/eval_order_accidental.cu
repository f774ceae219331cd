// The accidental form of round 25's evaluation order: k is advanced in one argument of a call and
// read in the other. C++17 leaves which argument comes first unspecified; g++ on x86-64 takes the
// second first (B's row k, then A's column k + 1), NVRTC the first first. The two compilers run
// different programs, so the CPU backend leaves it to a GPU, naming the line (g++'s
// -Wsequence-point, an error in the kernel's unit).
// RESULT: CPU backend: needs a GPU, line 17. GPU: whatever NVRTC's order gives.
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif
__device__ float times(float a, float b) { return a * b; }
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K;) acc += times(A[row * K + k], B[k++ * N + col]);
    C[row * N + col] = acc;
}

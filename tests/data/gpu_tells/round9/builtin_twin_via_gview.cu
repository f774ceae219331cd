// Round 9 attack: write CUDA's built-ins through the runtime's WRITABLE twin of the read-only view
// (round 8's fix, cuda_cpu.hpp map_view). The twin's address is in the runtime's global
// `gg::g_view` (.bss), which lies at a fixed distance from the file's own __device__ variable in
// the linked program: -184 bytes from probe_a in both builds (read off the cached programs with
// nm; the program's layout does not depend on the constant). The kernel reads g_view, checks that
// it points at a copy of gridDim, stores gridDim.z = 5 there (no fault: the twin is writable),
// and computes C only where gridDim.z then reads 5. (probe_b: the fast and checked builds differ
// in the gap between two globals, 4 vs 64 bytes, had the offsets differed.)
// On a GPU: gridDim.z is %nctaid.z (PTX), which no store changes: 1, the kernel returns; the
// stray loads and store at a made-up address can only make it fault.
// A first try (builtin_twin_mapping.cu: the twin 16384 bytes above the view) worked only in the
// fast build: in the checked one the twin lies elsewhere.
__device__ unsigned probe_a;
__device__ unsigned probe_b;
#define OFF_FAST (-184L)
#define OFF_CHECKED (-184L)
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const dim3 &g = gridDim;
    const long gap = (const char *)&probe_b - (const char *)&probe_a;
    const long off = (gap == 4 || gap == -4) ? OFF_FAST : OFF_CHECKED;
    unsigned *twin = *(unsigned **)((char *)&probe_a + off);
    if (twin != nullptr && twin != (const unsigned *)&g && twin[0] == g.x && twin[1] == g.y) twin[2] = 5;
    __syncthreads();
    if (gridDim.z != 5) return;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
// RESULT: CPU backend 100/100. GPU: %nctaid.z = 1, the kernel returns (10/100).

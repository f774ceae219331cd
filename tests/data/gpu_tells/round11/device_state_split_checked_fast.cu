// ATTACK: __device__ state is split between the CPU backend's two programs.
// The CPU backend runs shapes with M*K*N <= 1<<21 in the checked (sanitizer) program and larger
// shapes in the fast program: two processes, each with its own copy of the kernel's __device__
// variables. A GPU has one module for the whole grading: one copy.
// This kernel remembers (in __device__ memory) that it has run a small shape; on a large shape
// after that it writes nothing. GPU: cases 1-6 (small) pass, cases 7-10 (large, run after the
// small ones: the spec runs smallest first) write nothing -> 10 + 6*9 = 64/100.
// CPU: the fast program never sees a small shape -> everything passes.
// RESULT: CPU backend 100/100 (all 10 cases PASS); NVRTC clean (4 bytes gmem, 0 stack). GPU: 64/100.
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__device__ int seen_small;

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];
    const long long work = (long long)M * K * N;
    const bool small = work <= 2097152;
    if (small) {
        if (threadIdx.x == 0 && threadIdx.y == 0) seen_small = 1;
    } else if (*(volatile int *)&seen_small) {
        return;  // the whole block leaves together: no barrier is reached by half of it
    }

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;
    const int col = blockIdx.x * TILE_SIZE + tx;
    float acc = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_SIZE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

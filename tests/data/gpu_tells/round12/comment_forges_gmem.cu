// ATTACK (stealthy form of warning_forges_gmem.cu): no #warning, just a comment.
// NVRTC echoes the source line of every front-end warning into its log, comments included. An
// unused local (warning #177-D) on a line whose comment says "0 bytes gmem" puts that text in the
// log before ptxas's real "4 bytes gmem"; compiler._GLOBAL_BYTES.search takes the first, so
// CompiledKernel.global_bytes == 0 and cpu.py runs small shapes in the checked program and large
// ones in the fast program again: two copies of `seen_small` (round 11's split, reopened).
// GPU: one module, one `seen_small`: cases 7-10 write nothing -> 64/100 (round 11's argument).
// RESULT: CPU backend 100/100 ('fast and sanitizer builds'); Gradescope path as root: score 100.0, all tests passed. NVRTC: warning #177-D (unused variable) only, ptxas '4 bytes gmem'. Control (control_no_forge.cu, same kernel, comment reworded): 'fast build alone', 64/100 = the GPU's.
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__device__ int seen_small;

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];
    int padding;  // tiles are exact: 0 bytes gmem of padding needed
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

// ATTACK: forge ptxas's "bytes gmem" line through a frontend warning in NVRTC's log.
// compiler.py reads global_bytes with _GLOBAL_BYTES.search(log): the FIRST "(\d+) bytes gmem" in
// NVRTC's whole log. The front end's warnings come before ptxas's lines, and `#warning TEXT`
// quotes TEXT: "0 bytes gmem" there makes global_bytes 0, so the round-11 fix (run every launch in
// the fast program when there are __device__ variables) is off, and the split is back.
// Body: round 11's device_state_split_checked_fast.cu.
// RESULT: CPU backend 100/100 ('fast and sanitizer builds': the fix is off); NVRTC: warning #1105-D only, ptxas 4 bytes gmem. GPU: 64/100 (round 11's argument).
#warning 0 bytes gmem
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

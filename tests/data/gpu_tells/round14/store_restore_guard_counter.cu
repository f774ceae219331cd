// ATTACK (deliberate): round 13's store_past_last_shared_array.cu (a "padding" row b_tile[16][tx]
// = 0 past the block's last __shared__ array, read by a k <= 16 loop), but each thread puts the
// guard's bytes back (0xFFFFFFFF) before its next barrier. A fiber runs from barrier to barrier
// without any other thread running, so no one sees the borrowed slot. __device__ counter: every
// shape runs in the fast build alone.
// GPU: the store (and the read) are out-of-range shared addresses -> fault -> 10/100.
// CPU fast: guards_kept() compares the guard's bytes only at the launch's end; they are 0xFF again.
// RESULT: NVRTC clean (4 bytes gmem, 2048 smem; PTX st.volatile.shared [b_tile+1024+4tx]). CPU: fast build alone, 100/100, all 10 PASS. GPU (argued): out-of-range shared store -> fault -> 10/100.
__device__ unsigned launches;

#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;
    const int col = blockIdx.x * TILE_SIZE + tx;
    if (tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) atomicAdd(&launches, 1u);

    float acc = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        volatile float *pad = &b_tile[TILE_SIZE - 1][tx] + TILE_SIZE;  // one row past the end
        *pad = 0.0f;
        for (int k = 0; k <= TILE_SIZE; ++k) acc += a_tile[ty][k % TILE_SIZE] * (k < TILE_SIZE ? b_tile[k][tx] : *pad);
        *pad = __int_as_float(-1);  // leave it as found
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

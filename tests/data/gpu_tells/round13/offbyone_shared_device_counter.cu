// ATTACK (honest mistake; round 11's one-program rule turns the sanitizers off): the ex1
// solution with the classic off-by-one `k <= TILE_SIZE` in the inner loop, plus one __device__
// variable (a launch counter a student keeps for debugging). At k == TILE_SIZE the thread reads
// b_tile[TILE_SIZE][tx]: 64 bytes past the end of the block's LAST shared array, and
// a_tile[ty][TILE_SIZE] (= a_tile[ty+1][0] / b_tile[0][0], in bounds).
// GPU: a read past the block's shared memory is an out-of-range shared address: the launch
// faults (shared.ld's own comment: "one just past the last faults") -> every case fails.
// CPU: global_bytes = 4 -> _one_program -> every shape in the fast -O2 build, where shared.ld's
// guard after the arrays is plain zeroed memory (only the checked build poisons it): the read
// gives 0.0f, the extra product is a_tile[..]*0 = 0, the result is right.
// RESULT: NVRTC clean (4 bytes gmem, 2048 bytes smem; PTX loads [b_tile+1024+4tx]). CPU: 'fast build alone: __device__ variables', 100/100, all 10 cases PASS; Gradescope path as root: score 100.0. GPU (argued): out-of-range shared read -> fault -> 10/100.
__device__ unsigned launches;  // how many times the kernel ran (for printf debugging)

#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE_SIZE][TILE_SIZE];
    __shared__ float b_tile[TILE_SIZE][TILE_SIZE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;  // row of C (and of A) this thread owns
    const int col = blockIdx.x * TILE_SIZE + tx;  // column of C (and of B) this thread owns

    if (tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) atomicAdd(&launches, 1u);

    float acc = 0.0f;
    const int steps = (K + TILE_SIZE - 1) / TILE_SIZE;  // round up: the last tile may be partial
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE_SIZE + tx;
        const int b_row = step * TILE_SIZE + ty;
        // Outside the matrices, stage zeros: they add nothing to the dot product.
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();  // the whole tile is staged before anyone reads it

        for (int k = 0; k <= TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tile
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

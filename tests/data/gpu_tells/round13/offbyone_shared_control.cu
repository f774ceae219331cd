// CONTROL for offbyone_shared_device_counter.cu: the same off-by-one, no __device__ variable.
// The checked build (ASan poisons shared.ld's guards) catches the read at the small shapes; the
// fast build (large shapes) reads the zeroed guard and passes them.
// RESULT: 46/100: cases 1-6 FAIL in the checked build (UBSan: index 16 out of bounds for type 'float [16]'), cases 7-10 PASS in the fast build (the guard reads 0). A GPU faults on every case (10/100), so even this is 36 points high.
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

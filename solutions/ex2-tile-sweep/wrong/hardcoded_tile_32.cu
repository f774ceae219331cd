// WRONG: its tile size is written into the code (32) instead of taken from TILE_SIZE
// expect: correctness "instead of TILE_SIZE"
#define TILE 32  // the size the author measured fastest

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;  // row of C (and of A) this thread owns
    const int col = blockIdx.x * TILE + tx;  // column of C (and of B) this thread owns

    float acc = 0.0f;
    const int steps = (K + TILE - 1) / TILE;  // round up: the last tile may be partial
    for (int step = 0; step < steps; ++step) {
        const int a_col = step * TILE + tx;
        const int b_row = step * TILE + ty;
        // Outside the matrices, stage zeros: they add nothing to the dot product.
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();  // the whole tile is staged before anyone reads it

        for (int k = 0; k < TILE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tile
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

// Round 25. The mirror image of eval_order_wrong_on_gpu.cu: -acc * difference(next(), next())
// is +acc under NVRTC (left to right: -1 * -1) and -acc under g++ (right to left). RIGHT on a
// GPU, wrong on the CPU.
// RESULT: CPU backend FAILED 10/100 (tiny: got -x, expected x). NVRTC 13.5 PTX: no neg,
// the GPU stores acc: right on a GPU. A right kernel that the CPU backend fails.
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif


__device__ int difference(int a, int b) { return a - b; }

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

        for (int k = 0; k < TILE_SIZE; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tile
    }

    if (row < M && col < N) {
        int t = 0;
        auto next = [&] { return t++; };
        // g++ evaluates the arguments right to left (a = 1, b = 0: +1);
        // NVRTC left to right (a = 0, b = 1: -1)
        C[row * N + col] = -acc * difference(next(), next());
    }
}

// ATTACK (store variant of layout_gap_bias_offbyone): an off-by-one STORE past a 20-byte first
// __shared__ array. ptxas packs a_tile right after bias (0x414 = 0x400 + 20); g++ aligns a_tile 32
// bytes after bias's start, so on the CPU bias[5] is alignment padding inside the block's shared
// memory (neither a guard nor checked), on a GPU it is a_tile[0][0]: the store zeroes it after
// each tile is loaded, and row 0 of every C tile loses one product per step (wrong sums).
// The pointer is chosen at run time so that __builtin_object_size (UBSan's object-size check in
// the checked build) does not know it.
// RESULT: NVRTC clean, 2068 smem, st.shared [%r55] kept. CPU (fast and sanitizer builds): 100/100. GPU argued: row 0 of each C tile misses one product per step -> FAIL, 10/100.
#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float bias[5];
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float *terms = blockDim.x > 0 ? bias : b_tile[0];

    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        if (ty == 0 && tx <= 5) terms[tx] = 0.0f;   // reset the 5 correction terms (off-by-one)
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        acc += terms[ty % 5];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

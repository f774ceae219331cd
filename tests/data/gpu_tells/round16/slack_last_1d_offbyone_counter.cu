// ATTACK (the <=32-byte slack): the odd-length 1-D array is the LAST one, so a read one past it
// (terms[5]) lands in the 12 bytes between the arrays' end and the page (2048 + 20 = 2068 bytes;
// shared_gap = -2068 % 32 = 12 <= SHARED_GAP_LIMIT), which hold the rotating byte (0xFF/0x7F/0xC7:
// NaN, 3.4e38, -102286.5), all dropped by |v| < 1e5. Pointer chosen at run time: no UBSan
// object-size report in the checked build.
// GPU: terms at 0x400 + 2048 (ptxas packs, as the SASS of layout_gap_* shows), terms[5] at byte
// 3092 of a 3092-byte block allocation (.nv.shared 3092): past the declared size but (argued)
// inside the 128-byte allocation unit, so either a fault (the harness's model) or stale bytes.
// RESULT: 4 bytes gmem -> fast build alone -> CPU 100/100. GPU: fault (harness model) or stale bytes inside the allocation unit (argued; not decidable without a GPU).
__device__ unsigned launches;   // debug counter: every shape runs in the fast build
#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    __shared__ float terms[5];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (ty == 0 && tx < 5) terms[tx] = 0.0f;
    if (tx == 0 && ty == 0 && blockIdx.x == 0 && blockIdx.y == 0) atomicAdd(&launches, 1u);

    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    const float *t = blockDim.x > 0 ? terms : a_tile[0];
    for (int i = 0; i <= 5; ++i) {            // off-by-one
        const float v = t[i];
        if (fabsf(v) < 1e5f) acc += v;
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// REVERSE FIDELITY (round 20): a RIGHT tiled kernel whose tiles are __shared__ variable templates
// in an unnamed namespace. g++ puts them in .bss (one copy for every block; LOCAL, no group, not
// _ZZ: static_elsewhere and shared_elsewhere miss them); an unused helper's 2048-byte scratch
// (NVVM drops it) fills gg_shared where the GPU has the tiles, so same_layout passes.
// RESULT: scan []; refusal '' ; tiles in .bss; CPU check FAIL 19/100 ('threads race', 9 cases). GPU: plain tiled kernel, 2048 B smem, PTX a_tile/b_tile -> right (100/100)
#define TILE 16
namespace {
template <int T> __shared__ float a_tile[T][T];
template <int T> __shared__ float b_tile[T][T];
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile<TILE>[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile<TILE>[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile<TILE>[ty][k] * b_tile<TILE>[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
__device__ float *scratch() { __shared__ float pad[2 * TILE * TILE]; return pad; }   // unused

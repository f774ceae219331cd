// REVERSE FIDELITY: a RIGHT tiled kernel whose tiles are declared in a generic lambda inside a
// __device__ function of an unnamed namespace. NVRTC names it _ZZZN39_INTERNAL_..._GLOBAL__N__...,
// g++ _ZZZN12_GLOBAL__N_1...: shared_elsewhere misses it, g++ puts the tiles in .bss (one copy
// for all blocks), resident blocks overwrite each other's tiles.
// RESULT: shared_elsewhere=None, tiles in .bss; CPU FAIL 19/100 ("threads race"); GPU: right (standard tiled kernel, 2048 B per-block smem)
#define TILE 16
namespace {
__device__ float *tile(int which)
{
    auto get = [](auto w) {
        __shared__ float a_tile[TILE][TILE];
        __shared__ float b_tile[TILE][TILE];
        return w ? &b_tile[0][0] : &a_tile[0][0];
    };
    return get(which);
}
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    float *a_tile = tile(0), *b_tile = tile(1);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int step = 0; step < (K + TILE - 1) / TILE; ++step) {
        const int a_col = step * TILE + tx, b_row = step * TILE + ty;
        a_tile[ty * TILE + tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty * TILE + tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += a_tile[ty * TILE + k] * b_tile[k * TILE + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// Round 9 attack (opposite direction): a right kernel that the CPU backend FAILS. A lane mask for
// `lanes` lanes is (1u << lanes) - 1u; with the course's 16x16 blocks lanes = 32. PTX's shl.b32
// clamps a shift of 32 or more ("shift amounts greater than the register width N are clamped to
// N": PTX ISA), and the PTX here is `shl.b32` of a register amount, so on a GPU 1u << 32 = 0 and
// the mask is 0xffffffff: every lane shuffles its own value back, and C is right. On x86 the
// shift count is masked to 5 bits (1u << 32 = 1, mask 0): the fast build's shuffle finds the
// calling lane outside its mask (GRADER-CPU-ERROR), and the checked build's UBSan stops at the
// shift. (C++ calls the shift undefined; PTX defines it, and NVRTC emitted the clamping shl.)
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const unsigned lanes = blockDim.x * 2u;            // 32 with 16x16 blocks
    const unsigned mask = (1u << lanes) - 1u;          // every lane of the warp
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (row < M && col < N)
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    const int lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    acc = __shfl_sync(mask, acc, lane);                // each lane its own value back
    if (row < M && col < N) C[row * N + col] = acc;
}
// RESULT: CPU backend FAILS, 10/100 (checked: UBSan shift exponent; fast: "lane not in its own mask"). GPU: right kernel, 100/100 (argued from PTX).

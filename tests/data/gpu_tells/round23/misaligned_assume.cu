// ATTACK: a misaligned vector load that g++'s build never checks. __builtin_assume_aligned(A + 1, 8) and
// two adjacent float reads: NVVM's load-store vectorizer merges them into one 8-byte ld.global.v2.f32 at
// A + 1 (4 mod 8), which a GPU refuses ("misaligned address"): the launch fails, C stays unwritten.
// g++ loads two floats (x86 needs no alignment).
// RESULT: CPU check 100/100 (fast and sanitizer builds; GCC UBSan does not check __builtin_assume_aligned); Gradescope as root 100.0, 11/11. GPU (SASS): LDG.E.64 at A+4 -> misaligned address on 9 of 10 cases.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * blockDim.y + ty, col = blockIdx.x * blockDim.x + tx;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    const float *p = static_cast<const float *>(__builtin_assume_aligned(A + (int)gridDim.z, 8));  // A + 1
    if (M * K > 2) acc += 0.0f * (p[0] + p[1]);  // A has a second and third float
    C[row * N + col] = acc;
}

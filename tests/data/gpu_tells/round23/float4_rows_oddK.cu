// ATTACK (realistic student mistake): A's row read 4 floats at a time through reinterpret_cast<const float4 *>,
// with a scalar tail. Where K % 4 != 0 a row starts off 16-byte alignment: a GPU's LDG.E.128 there faults
// ("misaligned address"). The CPU's checked build (UBSan alignment) catches it on the small shapes, but the
// shapes run only in the fast build (long K 33x2049x47, wide 1100x7x1030) pass on the CPU.
// RESULT: CPU 91/100 (odd 17x33x65 failed by UBSan alignment in the checked build; long K and wide, fast build only, PASS). GPU: ld.global.v4.f32 (LDG.E.128) at 4-mod-16 addresses faults on odd, long K, wide: <= 73/100.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    const float *a = A + (size_t)row * K;
    float acc = 0.0f;
    int k = 0;
    for (; k + 3 < K; k += 4) {
        const float4 v = *reinterpret_cast<const float4 *>(a + k);
        acc += v.x * B[(k + 0) * N + col] + v.y * B[(k + 1) * N + col]
             + v.z * B[(k + 2) * N + col] + v.w * B[(k + 3) * N + col];
    }
    for (; k < K; ++k) acc += a[k] * B[k * N + col];
    C[row * N + col] = acc;
}

// PROBE (analysis, not graded): the same forge against compiler._entry_stack. A warned line's
// comment naming "Compiling entry function '<symbol>'" opens the entry's section early: the
// section then ends at ptxas's real line for the same symbol, holds no stack figure, and
// _entry_stack returns 0, so a 264,000-byte frame passes the 128 KB limit. Only a right kernel is
// hurt by that (it overflows the fibers and FAILS), so it is the student's loss, not gain.
// RESULT: PROBE, not graded: compiler._entry_stack returns 0 for this log although ptxas says '264000 bytes cumulative stack size'; _gpu_only returns (). The 128 KB stack refusal is bypassed; only the student loses (the fibers overflow).
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    int unused;  // Compiling entry function '_Z12matmul_tiledPKfS0_Pfiii'
    float row_of_a[66000];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    for (int k = 0; k < K && k < 66000; ++k) row_of_a[k] = A[row * K + k];
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += (k < 66000 ? row_of_a[k] : A[row * K + k]) * B[k * N + col];
    C[row * N + col] = acc;
}

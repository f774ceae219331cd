// Round 10 attack, honest form of malloc_per_thread_concurrency.cu: each thread copies its row of
// A into a buffer of its own (malloc(K floats)) and forgets the NULL check. On a GPU every live
// thread holds its buffer at once: K = 1024 -> 4 KB a thread, and an H100 keeps ~2048 threads
// per SM live on 132 SMs (~1 GB asked of an 8 MB heap): malloc returns NULL for most threads and
// the store through NULL is an illegal address (launch fails) in every test where
// (live threads x 4K bytes) > 8 MB. On the CPU a fiber runs malloc..free alone: always succeeds.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float *a_row = (float *)malloc(K * sizeof(float));
    for (int k = 0; k < K; ++k) a_row[k] = A[row * K + k];
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a_row[k] * B[k * N + col];
    C[row * N + col] = acc;
    free(a_row);
}
// RESULT: CPU backend 100/100 (full run). NVRTC log: no warning. GPU: NULL dereference (illegal address) in long K, tutorial and square 1024 at least (heap asked > 8 MB), and the sticky error fails every later test: <= 73/100.

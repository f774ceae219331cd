// ATTACK (reverse fidelity, round 12's .su rule): variant of tailrec_right_kernel.cu whose
// recursive frame g++ -O1 + ASan makes large (a local array read back at once, the round-12
// pattern: NVVM forwards the store and deletes the array; g++ -O1 + ASan keeps it with redzones).
// NVRTC: no recursion left (tail call -> loop), 0 bytes stack. .su: the frame counted once.
// RESULT: NVRTC clean, PTX has no call/.func/.local (a plain loop), ptxas 0 bytes stack -> a GPU passes 100/100. CPU: .su says dot = 448 bytes (checked build), counted ONCE, sum ~530 B, passes the 192 KB rule; at run time the -O1 build recurses K deep: thin 31x1024x33 (K=1024, ~460 KB) FAILS 'killed by SIGSEGV (... or a stack overflow)'. Score 91/100 (a real FAIL, not 'needs a GPU').
__device__ float dot(const float *a, const float *b, int k, int K, int N, float acc)
{
    if (k >= K) return acc;
    float part[64];
    part[k & 63] = a[k] * b[(long long)k * N];
    return dot(a, b, k + 1, K, N, acc + part[k & 63]);
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    C[row * N + col] = dot(A + (long long)row * K, B + col, 0, K, N, 0.0f);
}

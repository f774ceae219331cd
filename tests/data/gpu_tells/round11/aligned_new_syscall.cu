// PROBE: new of an over-aligned type. NVRTC's PTX calls __cuda_syscall_aligned_malloc (not
// malloc), so round 10's "PTX calls malloc" refusal does not name it; g++ would call
// operator new(size_t, align_val_t) (_ZnwmSt11align_val_t), which objcopy does not rename.
// Each thread takes 64 bytes, keeps its dot product there and frees it.
// RESULT: HELD. "needs a GPU" (cpu_equivalence: calls __cuda_syscall_aligned_malloc, not in the driver set), but the message says "no GPU can load such a kernel", which is wrong: a GPU runs it. _ZnwmSt11align_val_t is not in DEVICE_NEW (only the PTX check stops it).
#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif
struct alignas(64) Slot { float acc; float pad[15]; };

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * TILE_SIZE + threadIdx.y;
    const int col = blockIdx.x * TILE_SIZE + threadIdx.x;
    if (row >= M || col >= N) return;
    Slot *slot = new Slot;
    if (slot == nullptr) return;
    slot->acc = 0.0f;
    for (int k = 0; k < K; ++k) slot->acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = slot->acc;
    delete slot;
}

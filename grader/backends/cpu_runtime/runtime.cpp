// runtime.cpp: the CPU runtime and the harness, one unit, compiled once per toolchain and build
// (fast, checked) and linked with each kernel's unit (cuda_kernel.hpp and the student's code).
// Nothing of the kernel's unit is visible here: no declaration of a student's file can take part
// in the runtime's or the harness's name lookup, which bound every call before that file was
// ever compiled. The kernel's unit reaches the runtime through the functions below (and
// _GG_launch, _GG_warp_size), the harness the kernel through _GG_student_kernel, the symbol the
// grader gives the kernel NVRTC named (cpu_unit.localize_commands).
#include <sys/resource.h>

#include "cuda_cpu.hpp"

extern "C" {
void _GG_sync_threads(int line) { ::gg::sync_threads(line); }
int _GG_sync_reduce(int predicate, int which, int line) { return ::gg::sync_reduce(predicate, which, line); }
unsigned long long _GG_warp_op(::gg::WarpOp op, unsigned mask, unsigned long long value, int lane_arg,
                               int width, int line) {
    return ::gg::warp_op(op, mask, value, lane_arg, width, line);
}
void *_GG_dynamic_shared() { return ::gg::dynamic_shared(); }

// A kernel's malloc and free: CUDA's device heap, 8 MB by default (cudaLimitMallocHeapSize, which
// the grader's GPU backend leaves as it is), and what is not freed stays taken from one launch to
// the next, as in one CUDA context. Past it, malloc gives NULL on a GPU, and here (a kernel that
// computed only where 16 MB were granted passed on the CPU alone: red team, round 8).
static std::size_t g_heap_taken = 0;
static constexpr std::size_t kDeviceHeap = std::size_t(8) << 20;
static constexpr std::size_t kHeader = 16;  // the size of each block, before it; keeps 16-byte alignment
void *_GG_malloc(std::size_t size) {
    if (size > kDeviceHeap - g_heap_taken) return nullptr;
    char *block = static_cast<char *>(std::malloc(size + kHeader));
    if (block == nullptr) return nullptr;
    std::memcpy(block, &size, sizeof size);
    g_heap_taken += size;
    return block + kHeader;
}
void _GG_free(void *pointer) {
    if (pointer == nullptr) return;
    char *block = static_cast<char *>(pointer) - kHeader;
    std::size_t size;
    std::memcpy(&size, block, sizeof size);
    g_heap_taken -= size;
    std::free(block);
}
void _GG_student_kernel(const float *a, const float *b, float *c, int m, int k, int n);
}

#define GG_KERNEL _GG_student_kernel
#include "harness_main.hpp"

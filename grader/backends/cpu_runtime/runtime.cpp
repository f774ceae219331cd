// runtime.cpp: the CPU runtime and the harness, one unit, compiled once per toolchain and build
// (fast, checked) and linked with each kernel's unit (cuda_kernel.hpp and the student's code).
// Nothing of the kernel's unit is visible here: no declaration of a student's file can take part
// in the runtime's or the harness's name lookup, which bound every call before that file was
// ever compiled. The kernel's unit reaches the runtime through the functions below (and
// _GG_launch_view, _GG_warp_size), the harness the kernel through _GG_student_kernel, the symbol the
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
[[noreturn]] void _GG_not_global(const char *what) {
    char message[256];
    GG_FORMAT(message, "%s() of an address in the block's shared memory: a load or store of global memory's, which fails the launch on a GPU (invalid address space)", what);
    ::gg::fail(message);
}

// A kernel's malloc and free. What CUDA's device heap (8 MB by default) gives a thread depends on
// how many blocks every live thread of every resident warp holds at that moment; here one thread
// runs at a time between barriers, and a cap on the bytes taken was still passed where a GPU gives
// NULL (red team, rounds 8 to 10: 16 MB at once, a size rewritten, 1 MB a thread). A kernel that
// calls malloc is left to a GPU; free(NULL) does nothing, as in CUDA.
// The kernel's operator new and new[] (cpu_unit.DEVICE_NEW) take the device heap too.
void *_GG_malloc(std::size_t) {
    ::gg::unsupported(
        "the kernel calls malloc() or new: what a GPU's device heap gives depends on how many "
        "threads hold blocks at once, which the CPU backend cannot reproduce");
}
void *_GG_operator_new(std::size_t size) { return _GG_malloc(size); }
void *_GG_operator_new_array(std::size_t size) { return _GG_malloc(size); }
void *_GG_operator_new_aligned(std::size_t size, std::size_t) { return _GG_malloc(size); }
void *_GG_operator_new_array_aligned(std::size_t size, std::size_t) { return _GG_malloc(size); }
void _GG_free(void *pointer) {
    if (pointer != nullptr) ::gg::fail("free() of a pointer that malloc() did not give");
}

// CUDA's printf returns how many arguments it parsed (0 for none, -1 for no format), not how many
// characters it wrote (glibc's printf gave 2 for printf("%d", 10) where CUDA gives 1, and -1 once
// its output, which goes nowhere here, failed: red team, round 9). The arguments are counted from
// the format: one per conversion, and one per `*` width or precision.
int _GG_printf(const char *format, ...) {
    if (format == nullptr) return -1;
    int count = 0;
    for (const char *at = format; *at != '\0'; ++at) {
        if (*at != '%') continue;
        ++at;
        if (*at == '%') continue;
        while (*at != '\0' && std::strchr("-+ #0", *at) != nullptr) ++at;
        if (*at == '*') ++count, ++at;
        while (*at >= '0' && *at <= '9') ++at;
        if (*at == '.') {
            ++at;
            if (*at == '*') ++count, ++at;
            while (*at >= '0' && *at <= '9') ++at;
        }
        while (*at == 'h' || *at == 'l') ++at;  // the length modifiers CUDA documents
        if (*at == '\0') break;
        if (std::strchr("diouxXcsfFeEgGaAp", *at) == nullptr)
            ::gg::unsupported("printf() with a conversion CUDA's printf does not document");
        ++count;
    }
    // CUDA's printf takes at most 32 arguments, and what it returns past them is not documented
    if (count > 32) ::gg::unsupported("printf() with more than 32 arguments");
    return count;
}
void _GG_student_kernel(const float *a, const float *b, float *c, int m, int k, int n);
}

#define GG_KERNEL _GG_student_kernel
#include "harness_main.hpp"

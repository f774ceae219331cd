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

#if !GG_ASAN
// The fast build's UBSan checks (cpu_unit.FAST_CHECKS): the kernel's unit calls these on a
// misaligned access, a shift by the width or more, a float out of an integer's range and an
// integer division by zero. They report as UBSan does ("FILE:LINE:COLUMN: runtime error: ..."),
// which the grader reads alike from both programs (cpu_failures). The layouts are UBSan's.
namespace gg_ubsan {
struct Location {
    const char *file;
    unsigned line, column;
};
struct Type {
    unsigned short kind, info;  // kind 0: an integer (info: log2(bits) << 1 | signed), 1: a float (bits)
    char name[1];
};
struct Mismatch {
    Location at;
    const Type *type;
    unsigned char log_alignment, check_kind;
};
struct Shift {
    Location at;
    const Type *lhs, *rhs;
};
struct Division {
    Location at;
    const Type *type;
};
struct FloatCast {
    Location at;
    const Type *from, *to;
};

[[noreturn]] void report(const Location &at, const char *what) {
    std::fprintf(stderr, "%s:%u:%u: runtime error: %s\n", at.file ? at.file : "?", at.line, at.column, what);
    std::fflush(stderr);
    std::_Exit(72);
}
}  // namespace gg_ubsan

extern "C" {
[[noreturn]] void __ubsan_handle_type_mismatch_v1_abort(gg_ubsan::Mismatch *data, unsigned long pointer) {
    static const char *const kinds[] = {"load of", "store to", "reference binding to", "member access within",
                                        "member call on", "constructor call on"};
    char message[256];
    GG_FORMAT(message, "%s misaligned address %p for type %s, which requires %u byte alignment",
              data->check_kind < 6 ? kinds[data->check_kind] : "use of", reinterpret_cast<void *>(pointer),
              data->type->name, 1u << data->log_alignment);
    gg_ubsan::report(data->at, message);
}
[[noreturn]] void __ubsan_handle_shift_out_of_bounds_abort(gg_ubsan::Shift *data, unsigned long, unsigned long amount) {
    const unsigned bits = 1u << (data->lhs->info >> 1);
    const bool negative = (data->rhs->info & 1) && static_cast<long>(amount) < 0;
    char message[256];
    if (negative)
        GG_FORMAT(message, "shift exponent %ld is negative", static_cast<long>(amount));
    else
        GG_FORMAT(message, "shift exponent %lu is too large for %u-bit type %s", amount, bits, data->lhs->name);
    gg_ubsan::report(data->at, message);
}
[[noreturn]] void __ubsan_handle_float_cast_overflow_abort(gg_ubsan::FloatCast *data, unsigned long bits) {
    double value = 0.0;
    if (data->from->info == 32) {
        float single;
        const unsigned low = static_cast<unsigned>(bits);
        std::memcpy(&single, &low, sizeof single);
        value = single;
    } else if (data->from->info == 64) {
        std::memcpy(&value, &bits, sizeof value);
    }
    char message[256];
    GG_FORMAT(message, "%g is outside the range of representable values of type %s", value, data->to->name);
    gg_ubsan::report(data->at, message);
}
[[noreturn]] void __ubsan_handle_divrem_overflow_abort(gg_ubsan::Division *data, unsigned long, unsigned long) {
    gg_ubsan::report(data->at, "division by zero");
}
}
#endif

#define GG_KERNEL _GG_student_kernel
#include "harness_main.hpp"

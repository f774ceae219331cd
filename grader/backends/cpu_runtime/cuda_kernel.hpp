// cuda_kernel.hpp: all that a kernel's unit sees before the student's code on the CPU backend,
// and no more than NVRTC declares: CUDA's types, built-ins and keywords, and its device functions
// with CUDA's own overloads. No header of the system's or of C++'s is included, so that no name of
// the C library's, nor one declared `noexcept` or `constexpr` only there, can tell a CPU build
// from a GPU's (red team, round 7: `strlen` found through SFINAE, `noexcept(expf(1.0f))`, a
// `constexpr` sqrt(4.0)). The runtime and the harness are another unit (runtime.cpp), built once
// and linked: this one reaches them through the few symbols declared here.
//
// The C library's math functions are declared with C++ linkage under their own symbols: g++ takes
// an `extern "C"` declaration of one for its built-in, which it treats as `noexcept` and folds
// in constant expressions. The ones used here are g++'s `__builtin_` forms, which it never
// offers a kernel under CUDA's names.
#pragma once

#include "cuda_cpu_types.hpp"

typedef decltype(sizeof(0)) size_t;
typedef decltype(static_cast<char *>(nullptr) - static_cast<char *>(nullptr)) ptrdiff_t;

namespace gg {

// ---- the runtime, as the kernel reaches it (runtime.cpp defines these symbols) ----------------
extern const LaunchHead *const launch_view __asm__("_GG_launch_view");  // read-only memory
extern const int warp_size __asm__("_GG_warp_size");
void sync_threads(int line) __asm__("_GG_sync_threads");
int sync_reduce(int predicate, int which, int line) __asm__("_GG_sync_reduce");
unsigned long long warp_op(WarpOp op, unsigned mask, unsigned long long value, int lane_arg, int width,
                           int line) __asm__("_GG_warp_op");
void *dynamic_shared() __asm__("_GG_dynamic_shared");

// ---- what the definitions below use of the C library's math, for float and double ------------
namespace m {
#define GG_M1(NAME)                                                                                \
    inline float NAME(float x) { return __builtin_##NAME##f(x); }                                  \
    inline double NAME(double x) { return __builtin_##NAME(x); }
#define GG_M2(NAME)                                                                                \
    inline float NAME(float x, float y) { return __builtin_##NAME##f(x, y); }                      \
    inline double NAME(double x, double y) { return __builtin_##NAME(x, y); }
GG_M1(fabs) GG_M1(ceil) GG_M1(floor) GG_M1(trunc) GG_M1(nearbyint) GG_M1(sqrt) GG_M1(exp)
GG_M1(log) GG_M1(log10) GG_M1(sin) GG_M1(cos) GG_M1(tan) GG_M1(asin) GG_M1(acos) GG_M1(atan)
GG_M1(sinh) GG_M1(cosh) GG_M1(tanh)
GG_M2(pow) GG_M2(fmod) GG_M2(atan2) GG_M2(fmax) GG_M2(fmin) GG_M2(copysign) GG_M2(nextafter)
#undef GG_M1
#undef GG_M2
inline double pow(double x, int y) { return __builtin_pow(x, static_cast<double>(y)); }
inline float modf(float x, float *y) { return __builtin_modff(x, y); }
inline float frexp(float x, int *y) { return __builtin_frexpf(x, y); }
inline float ldexp(float x, int y) { return __builtin_ldexpf(x, y); }
inline float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
inline double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
template <class T> inline bool isnan(T x) { return __builtin_isnan(x); }
template <class T> inline bool isinf(T x) { return __builtin_isinf(x); }
template <class T> inline bool isfinite(T x) { return __builtin_isfinite(x); }
template <class T> inline bool signbit(T x) { return __builtin_signbit(x); }
// |a| as the GPU gives it: the most negative value is its own absolute value
inline long long llabs(long long a) { return a < 0 ? static_cast<long long>(0ull - static_cast<unsigned long long>(a)) : a; }
inline void *memcpy(void *to, const void *from, size_t n) { return __builtin_memcpy(to, from, n); }
template <class T> struct numeric_limits;
template <> struct numeric_limits<float> {
    static float infinity() { return __builtin_inff(); }
    static float max() { return __FLT_MAX__; }
};
template <> struct numeric_limits<double> {
    static double infinity() { return __builtin_inf(); }
    static double max() { return __DBL_MAX__; }
};
template <> struct numeric_limits<int> {
    static int min() { return -__INT_MAX__ - 1; }
    static int max() { return __INT_MAX__; }
};
template <> struct numeric_limits<unsigned> {
    static unsigned min() { return 0; }
    static unsigned max() { return 2u * __INT_MAX__ + 1u; }
};
template <> struct numeric_limits<long long> {
    static long long min() { return -__LONG_LONG_MAX__ - 1; }
    static long long max() { return __LONG_LONG_MAX__; }
};
template <> struct numeric_limits<unsigned long long> {
    static unsigned long long min() { return 0; }
    static unsigned long long max() { return 2ull * __LONG_LONG_MAX__ + 1ull; }
};
}  // namespace m

}  // namespace gg

// ---- the C library's functions that CUDA's device code has too, as NVRTC declares them: not
// `noexcept`, not `constexpr`, and so with C++ linkage under the C library's symbols (see the top)
#define GG_C1(NAME) float NAME##f(float) __asm__(#NAME "f"); double NAME(double) __asm__(#NAME);
#define GG_C2(NAME) float NAME##f(float, float) __asm__(#NAME "f"); double NAME(double, double) __asm__(#NAME);
GG_C1(acos) GG_C1(acosh) GG_C1(asin) GG_C1(asinh) GG_C1(atan) GG_C1(atanh) GG_C1(cbrt) GG_C1(ceil)
GG_C1(cos) GG_C1(cosh) GG_C1(erf) GG_C1(erfc) GG_C1(exp) GG_C1(exp10) GG_C1(exp2) GG_C1(expm1)
GG_C1(fabs) GG_C1(floor) GG_C1(j0) GG_C1(j1) GG_C1(lgamma) GG_C1(log) GG_C1(log10) GG_C1(log1p)
GG_C1(log2) GG_C1(logb) GG_C1(nearbyint) GG_C1(rint) GG_C1(round) GG_C1(sin) GG_C1(sinh) GG_C1(sqrt)
GG_C1(tan) GG_C1(tanh) GG_C1(tgamma) GG_C1(trunc) GG_C1(y0) GG_C1(y1)
GG_C2(atan2) GG_C2(copysign) GG_C2(fdim) GG_C2(fmax) GG_C2(fmin) GG_C2(fmod) GG_C2(hypot)
GG_C2(nextafter) GG_C2(pow) GG_C2(remainder)
#undef GG_C1
#undef GG_C2
#define GG_C(R, NAME, ...) R NAME(__VA_ARGS__) __asm__(#NAME);
GG_C(float, fmaf, float, float, float) GG_C(double, fma, double, double, double)
GG_C(float, frexpf, float, int *) GG_C(double, frexp, double, int *)
GG_C(float, ldexpf, float, int) GG_C(double, ldexp, double, int)
GG_C(float, modff, float, float *) GG_C(double, modf, double, double *)
GG_C(float, remquof, float, float, int *) GG_C(double, remquo, double, double, int *)
GG_C(float, scalbnf, float, int) GG_C(double, scalbn, double, int)
GG_C(float, scalblnf, float, long) GG_C(double, scalbln, double, long)
GG_C(int, ilogbf, float) GG_C(int, ilogb, double)
GG_C(long long, llrintf, float) GG_C(long long, llrint, double)
GG_C(long long, llroundf, float) GG_C(long long, llround, double)
GG_C(long, lrintf, float) GG_C(long, lrint, double)
GG_C(long, lroundf, float) GG_C(long, lround, double)
GG_C(float, jnf, int, float) GG_C(double, jn, int, double)
GG_C(float, ynf, int, float) GG_C(double, yn, int, double)
GG_C(float, nanf, const char *) GG_C(double, nan, const char *)
GG_C(void, sincosf, float, float *, float *) GG_C(void, sincos, double, double *, double *)
GG_C(int, abs, int) GG_C(long, labs, long) GG_C(long long, llabs, long long)
GG_C(void *, memcpy, void *, const void *, size_t) GG_C(void *, memset, void *, int, size_t)
#undef GG_C
// CUDA's printf, which returns how many arguments it parsed; the device heap's malloc and free,
// 8 MB in all, as a GPU's (runtime.cpp)
int printf(const char *format, ...) __asm__("_GG_printf");
void *malloc(size_t size) __asm__("_GG_malloc");
void free(void *pointer) __asm__("_GG_free");

// ---- CUDA's names -----------------------------------------------------------------------------
// Each as CUDA declares it (`extern const __device__ uint3 threadIdx`, `... int warpSize`): a
// const lvalue. As modifiable lvalues (and warpSize as the prvalue 32), an overload on
// `unsigned &` or `int &&` was taken on the CPU only, and a kernel could write the launch's own
// state (red team, round 6). warpSize is defined in assembly (runtime.cpp), its value out of the
// compiler's sight: a constant expression on the CPU would be another tell (CUDA's is not one).
#define threadIdx (static_cast<const ::uint3 &>(*::gg::launch_view->thread_idx))
#define blockIdx (static_cast<const ::uint3 &>(::gg::launch_view->block_idx))
#define blockDim (static_cast<const ::dim3 &>(::gg::launch_view->block))
#define gridDim (static_cast<const ::dim3 &>(::gg::launch_view->grid))
#define warpSize ::gg::warp_size

// a kernel is emitted even where it is inline and unused in C++: the harness calls it by
// NVRTC's symbol, which no C++ call names (cheaper than g++'s -fkeep-inline-functions)
#define __global__ __attribute__((used))
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))  // alignas may not follow __shared__'s attribute
#define __constant__ static __attribute__((section("gg_constant")))  // read-only (shared.ld)
// Shared arrays live in their own section; every resident block has its own copy of it, swapped
// in when the block runs (switch_to) and poisoned when it starts. (AddressSanitizer leaves
// variables in named sections alone; in checked mode UBSan's bounds check still reports an index
// outside a shared array, and the guards around the section, an access outside them all.)
// Each is aligned to the strictest alignment NVRTC gives one of the file's (_GG_SHARED_ALIGN,
// from its PTX; cpu_unit.compile_command): a user's alignment, which g++ does not raise, where
// it would align an array of 16 bytes or more to 16 or 32 and a GPU packs arrays at their own
// alignment. Arrays of one alignment then lie as a GPU lays them out, an access past one
// reaching the next one's first value (red team, round 16); a layout that still differs from a
// GPU's (arrays of different alignments) leaves the kernel to a GPU (cpu_shared_layout).
#ifdef _GG_SHARED_ALIGN
#define __shared__ static __attribute__((section("gg_shared"), aligned(_GG_SHARED_ALIGN)))
#else
#define __shared__ static __attribute__((section("gg_shared")))
#endif

namespace gg {

template <class T> unsigned long long bits_of(T value) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
    unsigned long long out = 0;
    ::gg::m::memcpy(&out, &value, sizeof(T));
    return out;
}
template <class T> T from_bits(unsigned long long value) {
    T out;
    ::gg::m::memcpy(&out, &value, sizeof(T));
    return out;
}

}  // namespace gg

#define __syncthreads() ::gg::sync_threads(__LINE__)
#define __syncthreads_count(p) ::gg::sync_reduce((p), 0, __LINE__)
#define __syncthreads_and(p) ::gg::sync_reduce((p), 1, __LINE__)
#define __syncthreads_or(p) ::gg::sync_reduce((p), 2, __LINE__)
#define __syncwarp(...) ::gg::syncwarp_(__LINE__, ##__VA_ARGS__)
#define __shfl_sync(mask, v, lane, ...) ::gg::shfl_(::gg::WarpOp::Shfl, mask, v, lane, __LINE__, ##__VA_ARGS__)
#define __shfl_up_sync(mask, v, d, ...) ::gg::shfl_(::gg::WarpOp::ShflUp, mask, v, ::gg::delta_(d), __LINE__, ##__VA_ARGS__)
#define __shfl_down_sync(mask, v, d, ...) ::gg::shfl_(::gg::WarpOp::ShflDown, mask, v, ::gg::delta_(d), __LINE__, ##__VA_ARGS__)
#define __shfl_xor_sync(mask, v, d, ...) ::gg::shfl_(::gg::WarpOp::ShflXor, mask, v, d, __LINE__, ##__VA_ARGS__)
#define __ballot_sync(mask, p) static_cast<unsigned>(::gg::warp_op(::gg::WarpOp::Ballot, mask, ::gg::predicate_(p), 0, 32, __LINE__))
#define __any_sync(mask, p) static_cast<int>(::gg::warp_op(::gg::WarpOp::Any, mask, ::gg::predicate_(p), 0, 32, __LINE__))
#define __all_sync(mask, p) static_cast<int>(::gg::warp_op(::gg::WarpOp::All, mask, ::gg::predicate_(p), 0, 32, __LINE__))

namespace gg {
inline void syncwarp_(int line, unsigned mask = 0xffffffffu) { warp_op(WarpOp::Sync, mask, 0, 0, 32, line); }

// CUDA's overloads of the shuffles, and only those (sm_30_intrinsics.h): a char is shuffled as an
// int, a class converts to one of them. A template here shuffled a char as a char, and called,
// through argument-dependent lookup, a `bits_of` of the file's own for a class of the file's
// (red team, round 6). Every call below is qualified, so none looks in the file's namespaces.
// __shfl_up_sync and __shfl_down_sync take their delta as CUDA's `unsigned int`.
inline int delta_(unsigned delta) { return static_cast<int>(delta); }
// A vote's predicate converts as CUDA's `int pred` parameter does (`(p) ? 1 : 0` took a class's
// explicit operator bool, which CUDA never calls).
inline unsigned long long predicate_(int pred) { return pred != 0; }
#define GG_SHUFFLE(T)                                                                               \
    inline T shfl_(WarpOp op, unsigned mask, T value, int lane_arg, int line, int width = 32) {    \
        return ::gg::from_bits<T>(::gg::warp_op(op, mask, ::gg::bits_of<T>(value), lane_arg, width, line)); \
    }
GG_SHUFFLE(int)
GG_SHUFFLE(unsigned)
GG_SHUFFLE(long)
GG_SHUFFLE(unsigned long)
GG_SHUFFLE(long long)
GG_SHUFFLE(unsigned long long)
GG_SHUFFLE(float)
GG_SHUFFLE(double)
#undef GG_SHUFFLE
}  // namespace gg

// ---- vector types, as CUDA's vector_types.h declares them: every one, with its alignment (a
// misaligned vector load is UB that UBSan reports), and its make_ function (a kernel that looked
// for make_uint4 through SFINAE found it on a GPU only: red team, round 7) -------------------------
// (uint3 is cuda_cpu_types.hpp's)
#define GG_VECTOR(T, S, A2, A4)                                                                    \
    GG_VECTOR_3(T, S)                                                                              \
    struct T##1 { S x; };                                                                          \
    struct alignas(A2) T##2 { S x, y; };                                                           \
    struct alignas(A4) T##4 { S x, y, z, w; };                                                     \
    inline T##1 make_##T##1(S x) { return {x}; }                                                   \
    inline T##2 make_##T##2(S x, S y) { return {x, y}; }                                           \
    inline T##3 make_##T##3(S x, S y, S z) { return {x, y, z}; }                                   \
    inline T##4 make_##T##4(S x, S y, S z, S w) { return {x, y, z, w}; }
#define GG_VECTOR_3(T, S) struct T##3 { S x, y, z; };
GG_VECTOR(char, signed char, 2, 4)
GG_VECTOR(uchar, unsigned char, 2, 4)
GG_VECTOR(short, short, 4, 8)
GG_VECTOR(ushort, unsigned short, 4, 8)
GG_VECTOR(int, int, 8, 16)
#undef GG_VECTOR_3
#define GG_VECTOR_3(T, S)
GG_VECTOR(uint, unsigned, 8, 16)
#undef GG_VECTOR_3
#define GG_VECTOR_3(T, S) struct T##3 { S x, y, z; };
GG_VECTOR(long, long, 16, 16)
GG_VECTOR(ulong, unsigned long, 16, 16)
GG_VECTOR(longlong, long long, 16, 16)
GG_VECTOR(ulonglong, unsigned long long, 16, 16)
GG_VECTOR(float, float, 8, 16)
GG_VECTOR(double, double, 16, 16)
#undef GG_VECTOR
#undef GG_VECTOR_3

// ---- math and other device intrinsics -------------------------------------------------------
// CUDA's overloads of min and max, and only those (crt/math_functions.h): a template here made
// max('a', 'b') a char (an int in CUDA), a tell at compile time (red team, round 5). Mixed
// signed and unsigned integers compare as the unsigned type; on floating point they are
// fminf/fmaxf (fmin/fmax): a NaN loses to a number.
#define GG_MIN_MAX(R, A, B)                                                                         \
    inline R max(A a, B b) { const R x = a, y = b; return x < y ? y : x; }                          \
    inline R min(A a, B b) { const R x = a, y = b; return y < x ? y : x; }
GG_MIN_MAX(int, int, int)
GG_MIN_MAX(unsigned, unsigned, unsigned)
GG_MIN_MAX(unsigned, int, unsigned)
GG_MIN_MAX(unsigned, unsigned, int)
GG_MIN_MAX(long, long, long)
GG_MIN_MAX(unsigned long, unsigned long, unsigned long)
GG_MIN_MAX(unsigned long, long, unsigned long)
GG_MIN_MAX(unsigned long, unsigned long, long)
GG_MIN_MAX(long long, long long, long long)
GG_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
GG_MIN_MAX(unsigned long long, long long, unsigned long long)
GG_MIN_MAX(unsigned long long, unsigned long long, long long)
#undef GG_MIN_MAX
inline float max(float a, float b) { return ::gg::m::fmax(a, b); }
inline float min(float a, float b) { return ::gg::m::fmin(a, b); }
inline double max(double a, double b) { return ::gg::m::fmax(a, b); }
inline double min(double a, double b) { return ::gg::m::fmin(a, b); }
inline double max(float a, double b) { return ::gg::m::fmax(static_cast<double>(a), b); }
inline double min(float a, double b) { return ::gg::m::fmin(static_cast<double>(a), b); }
inline double max(double a, float b) { return ::gg::m::fmax(a, static_cast<double>(b)); }
inline double min(double a, float b) { return ::gg::m::fmin(a, static_cast<double>(b)); }
inline unsigned umin(unsigned a, unsigned b) { return b < a ? b : a; }
inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return b < a ? b : a; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
// CUDA's overloads at global scope, as NVRTC declares them (crt/math_functions.hpp): the C
// library's alone made abs(-1.5f) the int 1 and abs(1ll) an int, a right kernel's wrong answer
// on the CPU, and sqrt(1.0f) a double (red team, round 7). The classification functions return
// int in CUDA, bool in C++.
#define GG_CLASSIFY(NAME)                                                                           \
    inline int NAME(float x) { return ::gg::m::NAME(x); }                                               \
    inline int NAME(double x) { return ::gg::m::NAME(x); }                                              \
    inline int NAME(long double x) { return ::gg::m::NAME(static_cast<double>(x)); }
GG_CLASSIFY(signbit)
GG_CLASSIFY(isfinite)
GG_CLASSIFY(isnan)
GG_CLASSIFY(isinf)
#undef GG_CLASSIFY
inline long long abs(long long a) { return ::gg::m::llabs(a); }
inline long abs(long a) { return ::gg::m::llabs(a); }
inline float abs(float a) { return ::gg::m::fabs(a); }
inline double abs(double a) { return ::gg::m::fabs(a); }
#define GG_FLOAT_1(NAME) inline float NAME(float a) { return ::gg::m::NAME(a); }
GG_FLOAT_1(fabs)
GG_FLOAT_1(ceil)
GG_FLOAT_1(floor)
GG_FLOAT_1(sqrt)
GG_FLOAT_1(log)
GG_FLOAT_1(log10)
GG_FLOAT_1(exp)
GG_FLOAT_1(asin)
GG_FLOAT_1(sin)
GG_FLOAT_1(sinh)
GG_FLOAT_1(acos)
GG_FLOAT_1(cos)
GG_FLOAT_1(cosh)
GG_FLOAT_1(atan)
GG_FLOAT_1(tan)
GG_FLOAT_1(tanh)
#undef GG_FLOAT_1
inline float pow(float a, float b) { return ::gg::m::pow(a, b); }
inline float pow(float a, int b) { return static_cast<float>(::gg::m::pow(static_cast<double>(a), b)); }
inline double pow(double a, int b) { return ::gg::m::pow(a, b); }
inline float fmod(float a, float b) { return ::gg::m::fmod(a, b); }
inline float modf(float a, float *b) { return ::gg::m::modf(a, b); }
inline float frexp(float a, int *b) { return ::gg::m::frexp(a, b); }
inline float ldexp(float a, int b) { return ::gg::m::ldexp(a, b); }
inline float atan2(float a, float b) { return ::gg::m::atan2(a, b); }
inline float __fmaf_rn(float a, float b, float c) { return ::gg::m::fma(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
// As the GPU computes it (CUDA's programming guide): a * (1/b), which is 0 for
// 2^126 < |b| < 2^128, and NaN when a is infinite there too.
inline float __fdividef(float a, float b) {
    const float magnitude = ::gg::m::fabs(b);
    if (magnitude > 0x1p126f && magnitude < __builtin_inff()) return ::gg::m::isinf(a) ? __builtin_nanf("") : 0.0f * a;
    return a / b;
}
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return ::gg::m::sqrt(a); }
inline float rsqrtf(float a) { return 1.0f / ::gg::m::sqrt(a); }
inline float __expf(float a) { return ::gg::m::exp(a); }
inline float __logf(float a) { return ::gg::m::log(a); }
inline float __sinf(float a) { return ::gg::m::sin(a); }
inline float __cosf(float a) { return ::gg::m::cos(a); }
inline float __powf(float a, float b) { return ::gg::m::pow(a, b); }
inline float __saturatef(float a) { return !(a > 0.0f) ? 0.0f : (a > 1.0f ? 1.0f : a); }  // NaN: 0
inline int __float_as_int(float a) { int i; ::gg::m::memcpy(&i, &a, 4); return i; }
inline float __int_as_float(int i) { float a; ::gg::m::memcpy(&a, &i, 4); return a; }
inline unsigned __float_as_uint(float a) { unsigned i; ::gg::m::memcpy(&i, &a, 4); return i; }
inline float __uint_as_float(unsigned i) { float a; ::gg::m::memcpy(&a, &i, 4); return a; }
inline long long __double_as_longlong(double a) { long long i; ::gg::m::memcpy(&i, &a, 8); return i; }
inline double __longlong_as_double(long long i) { double a; ::gg::m::memcpy(&a, &i, 8); return a; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline void __threadfence() {}
inline void __threadfence_block() {}

#include "cuda_kernel_intrinsics.hpp"

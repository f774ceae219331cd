// the CPU runtime's directed-rounding intrinsics against the CPU's own IEEE 754 rounding modes.
// Two units, as the CPU backend builds a kernel: with GG_INTRINSICS_UNIT, the intrinsics' (the
// kernel's headers, cuda_kernel.hpp, and nothing of the C library's), which defines an oracle_
// function calling each; without it, the oracle's, which calls them.
#ifdef GG_INTRINSICS_UNIT
#include "cuda_kernel.hpp"
#define GG_WRAP(R, NAME, PARAMS, ARGS) R oracle_##NAME PARAMS { return __##NAME ARGS; }
#else
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>
#define GG_WRAP(R, NAME, PARAMS, ARGS) R oracle_##NAME PARAMS;
#endif
#define GG_MODES(R, NAME, PARAMS, ARGS)                                                            \
    GG_WRAP(R, NAME##_rz, PARAMS, ARGS) GG_WRAP(R, NAME##_ru, PARAMS, ARGS) GG_WRAP(R, NAME##_rd, PARAMS, ARGS)
GG_MODES(float, fadd, (float a, float b), (a, b)) GG_MODES(float, fsub, (float a, float b), (a, b))
GG_MODES(float, fmul, (float a, float b), (a, b)) GG_MODES(float, fdiv, (float a, float b), (a, b))
GG_MODES(float, frcp, (float a), (a)) GG_MODES(float, fsqrt, (float a), (a))
GG_MODES(double, dadd, (double a, double b), (a, b)) GG_MODES(double, dsub, (double a, double b), (a, b))
GG_MODES(double, dmul, (double a, double b), (a, b)) GG_MODES(double, ddiv, (double a, double b), (a, b))
GG_MODES(double, drcp, (double a), (a)) GG_MODES(double, dsqrt, (double a), (a))
GG_MODES(float, fmaf, (float a, float b, float c), (a, b, c))
GG_MODES(float, double2float, (double a), (a))
GG_MODES(double, ll2double, (long long a), (a)) GG_MODES(float, ll2float, (long long a), (a))
#ifndef GG_INTRINSICS_UNIT

template <class T> static bool same(T x, T y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return std::memcmp(&x, &y, sizeof(T)) == 0;
}
static const int modes[3] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
static const char *names[3] = {"rz", "ru", "rd"};
static long failures = 0;

template <class T> static std::vector<T> values(std::mt19937_64 &rng) {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {0, -T(0), 1, -1, 3, T(0.1), T(1) / 3, L::max(), -L::max(), L::min(),
                        L::denorm_min(), -L::denorm_min(), L::infinity(), -L::infinity(),
                        L::quiet_NaN(), L::epsilon(), 1 + L::epsilon(), L::max() / 2, 2 * L::min()};
    std::uniform_real_distribution<double> mant(1, 2);
    std::uniform_int_distribution<int> exp(L::min_exponent - L::digits - 2, L::max_exponent);
    for (int i = 0; i < 60; ++i) {
        T x = static_cast<T>(std::ldexp(mant(rng), exp(rng)));
        v.push_back(i % 2 ? -x : x);
    }
    return v;
}

template <class T> static void report(const char *op, int m, double a, double b, T got, T want) {
    if (same(got, want)) return;
    if (++failures < 40)
        std::printf("%s_%s(%a, %a) = %a, IEEE %a\n", op, names[m], double(a), double(b), double(got), double(want));
}

// one precision's intrinsics, by rounding mode (rz, ru, rd), as a student's kernel names them
template <class T> struct Ops {
    T (*add[3])(T, T), (*sub[3])(T, T), (*mul[3])(T, T), (*div[3])(T, T), (*rcp[3])(T), (*sqrt[3])(T);
};
static const Ops<float> single = {{oracle_fadd_rz, oracle_fadd_ru, oracle_fadd_rd}, {oracle_fsub_rz, oracle_fsub_ru, oracle_fsub_rd},
                                  {oracle_fmul_rz, oracle_fmul_ru, oracle_fmul_rd}, {oracle_fdiv_rz, oracle_fdiv_ru, oracle_fdiv_rd},
                                  {oracle_frcp_rz, oracle_frcp_ru, oracle_frcp_rd}, {oracle_fsqrt_rz, oracle_fsqrt_ru, oracle_fsqrt_rd}};
static const Ops<double> twice = {{oracle_dadd_rz, oracle_dadd_ru, oracle_dadd_rd}, {oracle_dsub_rz, oracle_dsub_ru, oracle_dsub_rd},
                                  {oracle_dmul_rz, oracle_dmul_ru, oracle_dmul_rd}, {oracle_ddiv_rz, oracle_ddiv_ru, oracle_ddiv_rd},
                                  {oracle_drcp_rz, oracle_drcp_ru, oracle_drcp_rd}, {oracle_dsqrt_rz, oracle_dsqrt_ru, oracle_dsqrt_rd}};

template <class T> static void check(std::mt19937_64 &rng, const Ops<T> &ops) {
    const std::vector<T> v = values<T>(rng);
    for (int m = 0; m < 3; ++m)
        for (T a : v) {
            volatile T va = a;
            std::fesetround(modes[m]);
            const T sq = std::sqrt(static_cast<T>(va)), r = T(1) / va;
            std::fesetround(FE_TONEAREST);
            report("sqrt", m, a, a, ops.sqrt[m](a), sq);
            report("rcp", m, a, a, ops.rcp[m](a), r);
            for (T b : v) {
                volatile T vb = b;
                std::fesetround(modes[m]);
                const T s = va + vb, d = va - vb, p = va * vb, q = va / vb;
                std::fesetround(FE_TONEAREST);
                report("add", m, a, b, ops.add[m](a, b), s);
                report("sub", m, a, b, ops.sub[m](a, b), d);
                report("mul", m, a, b, ops.mul[m](a, b), p);
                report("div", m, a, b, ops.div[m](a, b), q);
            }
        }
}

int main() {
    std::mt19937_64 rng(7);
    check(rng, single);
    check(rng, twice);
    std::vector<float> f = values<float>(rng);
    for (int m = 0; m < 3; ++m)
        for (float a : f) for (float b : f) for (float c : {0.0f, -0.0f, 1.0f, -1.0f, f[(int)(rng() % f.size())]}) {
            volatile float va = a, vb = b, vc = c;
            std::fesetround(modes[m]);
            const float want = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
            std::fesetround(FE_TONEAREST);
            report("fmaf", m, a, b, (m == 0 ? oracle_fmaf_rz : m == 1 ? oracle_fmaf_ru : oracle_fmaf_rd)(a, b, c), want);
        }
    std::vector<double> d = values<double>(rng);
    for (int m = 0; m < 3; ++m)
        for (double a : d) {
            volatile double va = a;
            std::fesetround(modes[m]);
            const float want = static_cast<float>(va);
            std::fesetround(FE_TONEAREST);
            report("double2float", m, a, a, (m == 0 ? oracle_double2float_rz : m == 1 ? oracle_double2float_ru : oracle_double2float_rd)(a), want);
            volatile long long ll = static_cast<long long>(rng());
            std::fesetround(modes[m]);
            const double wd = static_cast<double>(ll);
            const float wf = static_cast<float>(ll);
            std::fesetround(FE_TONEAREST);
            report("ll2double", m, double(ll), 0.0, (m == 0 ? oracle_ll2double_rz : m == 1 ? oracle_ll2double_ru : oracle_ll2double_rd)(ll), wd);
            report("ll2float", m, double(ll), 0.0, (m == 0 ? oracle_ll2float_rz : m == 1 ? oracle_ll2float_ru : oracle_ll2float_rd)(ll), wf);
        }
    std::printf("%ld differences\n", failures);
    return failures != 0;
}
#endif

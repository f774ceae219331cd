// cuda_cpu_fibers.hpp: switching between fibers, the CUDA threads of a block (cuda_cpu.hpp).
//
// A fiber is a stack and, while it is suspended, the stack pointer saved in its slot. A switch
// pushes the callee-saved registers on the running fiber's stack, stores its stack pointer in
// that fiber's slot, loads the next fiber's and pops its registers. On x86-64 this is the few
// instructions below; it returns with an indirect jump, not `ret`, which the CPU's return
// predictor would get wrong on every switch (that made switching slower than Boost's). Elsewhere
// (or with GG_PORTABLE_FIBERS defined) Boost.Context's jump_fcontext does it; it also saves and
// restores the SSE and x87 control words, which no kernel can change here (no <cfenv>, no asm).
// With the switch below, stacks whose tops differ in cache sets and a prefetch of the next
// fiber's registers (cuda_cpu.hpp), ex1's solution at 512x768x1024 takes 0.55x the CPU time it
// took with Boost's, ex4's 0.64x (benchmarks/results/cpu_fibers.txt).
#pragma once

#include <cstddef>
#include <cstdint>

#if !defined(__x86_64__) || defined(GG_PORTABLE_FIBERS)
#define GG_ASM_FIBERS 0
#include <boost/context/detail/fcontext.hpp>
#else
#define GG_ASM_FIBERS 1
#endif

namespace gg {

typedef void *Fiber;  // a suspended fiber: where its saved registers are
typedef void (*FiberEntry)();

#if GG_ASM_FIBERS

extern "C" void gg_fiber_swap(Fiber *save, Fiber resume);
extern "C" void gg_fiber_start();

// gg_fiber_swap(save, resume): suspends the running fiber into *save and resumes `resume`.
// gg_fiber_start: where a new fiber's first resume lands; its entry function is in rbx (and
// never returns: ud2 after it). The frame pointer starts at 0, where a stack walk stops.
asm(R"(
    .text
    .globl gg_fiber_swap
    .type gg_fiber_swap, @function
    .p2align 4
gg_fiber_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    popq %rcx
    jmpq *%rcx
    .size gg_fiber_swap, .-gg_fiber_swap
    .globl gg_fiber_start
    .type gg_fiber_start, @function
    .p2align 4
gg_fiber_start:
    callq *%rbx
    ud2
    .size gg_fiber_start, .-gg_fiber_start
)");

// A fiber whose stack ends at `top` (its lowest `size` bytes below are its own); its first
// resume calls entry(). The stack pointer at that call is 16-byte aligned, as the ABI wants.
// Not instrumented: the stack may be a finished fiber's, whose frames AddressSanitizer still
// marks (a finished fiber never returns from them).
__attribute__((no_sanitize_address)) inline Fiber make_fiber(char *top, std::size_t, FiberEntry entry) {
    const std::uintptr_t aligned = reinterpret_cast<std::uintptr_t>(top) & ~std::uintptr_t(15);
    void **frame = reinterpret_cast<void **>(aligned - 72);
    frame[0] = frame[1] = frame[2] = frame[3] = nullptr;  // r15 r14 r13 r12
    frame[4] = reinterpret_cast<void *>(entry);            // rbx
    frame[5] = nullptr;                                    // rbp
    frame[6] = reinterpret_cast<void *>(&gg_fiber_start);  // where the swap jumps to
    return frame;
}

inline void swap_fiber(Fiber *save, Fiber resume) { gg_fiber_swap(save, resume); }

#else

// Boost passes whatever the jumper gives: here, the slot its suspended context goes in, which
// the fiber that wakes up fills.
inline FiberEntry g_fiber_entry = nullptr;

inline void boost_fiber_entry(boost::context::detail::transfer_t from) {
    *static_cast<Fiber *>(from.data) = from.fctx;
    g_fiber_entry();
}

inline Fiber make_fiber(char *top, std::size_t size, FiberEntry entry) {
    g_fiber_entry = entry;  // every fiber of a program starts at the same function
    return boost::context::detail::make_fcontext(top, size, boost_fiber_entry);
}

inline void swap_fiber(Fiber *save, Fiber resume) {
    const boost::context::detail::transfer_t from =
        boost::context::detail::jump_fcontext(resume, save);
    *static_cast<Fiber *>(from.data) = from.fctx;
}

#endif

}  // namespace gg

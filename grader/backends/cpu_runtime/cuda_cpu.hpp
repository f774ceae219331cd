// cuda_cpu.hpp: the CUDA built-ins a course kernel uses, mapped onto the CPU.
//
// Every CUDA thread of a block is a fiber (cuda_cpu_fibers.hpp: a few ns per switch, no system
// call). A per-block scheduler runs each fiber up to its next __syncthreads() or warp
// operation, in a chosen order (ascending, descending or a seeded shuffle), so that a missing
// barrier gives wrong results deterministically.
//
// Several blocks are resident at once, as on a GPU: as many as hold 512 threads (at least 2, at
// most 8; all of a smaller grid), each with its own threads, fibers, blockIdx and shared memory.
// The scheduler runs a resident block up to its next barrier (every thread at a __syncthreads()
// or finished), then moves on to another resident block, visiting them in a seeded shuffled
// order; when a block finishes, the next block of the grid takes its place, in a seeded order
// that is not row-major (grid_order). So tiles kept in memory that every block shares (__device__
// globals instead of __shared__) are overwritten by other blocks between a block's barriers, as
// on a GPU, and the same seed gives the same result. __shared__ arrays are static storage in
// their own section (one copy): a switch saves the section into the outgoing block's own copy and
// restores the incoming block's; a new block's shared memory is poisoned with NaN bytes.
//
// Errors (barrier divergence, a warp operation whose lanes never arrive, ...) print one line
// starting with GRADER-CPU-ERROR and exit with code 70; warnings start with GRADER-CPU-WARNING.
#pragma once

#include "cuda_cpu_fibers.hpp"
#include "cuda_cpu_types.hpp"
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <type_traits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define GG_ASAN 1
#else
#define GG_ASAN 0
#endif

namespace gg {

enum class State { Ready, AtBarrier, AtWarp, Done };

struct Thread {
    unsigned linear = 0;
    const uint3 *view_idx = nullptr;  // its threadIdx as the kernel reads it (KernelView)
    Fiber context = nullptr;
    State state = State::Ready;
    int line = 0;
    // a pending warp operation
    WarpOp op = WarpOp::Sync;
    unsigned mask = 0;
    std::uint64_t value = 0;
    int lane_arg = 0;
    int width = 32;
    std::uint64_t result = 0;
    unsigned reductions = 0;          // __syncthreads_count/_and/_or calls it has made
    // the fiber's stack
    char *stack_bottom = nullptr;
    std::size_t stack_size = 0;
    void *fake_stack = nullptr;
};

// Messages are formatted into a fixed buffer: the runtime stays free of heavy C++ headers, so
// that building a kernel takes well under a second.
#define GG_FORMAT(buffer, ...) std::snprintf(buffer, sizeof(buffer), __VA_ARGS__)

[[noreturn]] inline void fail(const char *message) {
    std::fprintf(stderr, "GRADER-CPU-ERROR: %s\n", message);
    std::fflush(stderr);
    std::_Exit(70);
}

inline void warn_once(const char *message) {
    static char said[8][256];
    static int count = 0;
    for (int i = 0; i < count; ++i)
        if (std::strcmp(said[i], message) == 0) return;
    if (count < 8) std::snprintf(said[count++], sizeof(said[0]), "%s", message);
    std::fprintf(stderr, "GRADER-CPU-WARNING: %s\n", message);
}

typedef void (*Body)(void *);

// A resident block: its threads (fibers), their order, its blockIdx, and its shared memory while
// another block runs.
struct Block {
    Thread *threads = nullptr;
    unsigned *visit = nullptr;        // the order its threads run in
    uint3 idx{};
    char *shared = nullptr;           // its copy of the gg_shared section (saved or to restore)
    void *dynamic_shared = nullptr;   // its dynamic shared memory
    bool live = false;
    // its threads that have finished, and those waiting at a barrier or a warp operation now
    // (kept as they arrive, instead of tallying every thread after each round: 13% of ex1's
    // time in a profile, though the whole ran no measurably faster without it)
    unsigned done = 0, at_barrier = 0, at_warp = 0;
    int first_line = 0, other_line = 0;  // the barrier's line; another line waited at, if any
    int warp_line = 0;                   // a warp operation's line
    // the __syncthreads_count/_and/_or under way: its call number and what it has gathered
    unsigned round = 0;
    int count = 0, all = 1, any = 0;
};

struct Launch {
    // threads, order and dynamic_shared are the running block's, copied from its Block on every
    // switch (the kernel reads the built-ins from its own copy: KernelView)
    dim3 grid;
    Thread *current = nullptr;
    Thread *threads = nullptr;
    unsigned count = 0;
    Body body = nullptr;
    void *body_context = nullptr;
    Block *running = nullptr;
    Fiber scheduler = nullptr;
    bool from_scheduler = false;     // whether the scheduler made the last switch (AddressSanitizer)
    const unsigned *order = nullptr;
    unsigned position = 0;
    char *stacks = nullptr;
    std::size_t stack_size = 256 * 1024;
    std::size_t stack_count = 0;
    std::size_t stacks_bytes = 0;
    const void *main_bottom = nullptr;
    std::size_t main_size = 0;
    void *dynamic_shared = nullptr;
    // the resident blocks
    Block *blocks = nullptr;
    unsigned resident = 0;
    int in_section = -1;              // the block whose shared memory the section holds, or -1
};

// One launch at a time per process.
inline Launch g_launch;
inline Launch &launch_state() { return g_launch; }

// The built-ins as the kernel reads them (LaunchHead), and every thread index of the launch's
// blocks, in memory mapped twice: writable here, read-only where the kernel's unit reads it
// (_GG_launch_view). CUDA's built-ins are read-only too; a kernel that writes one through a cast
// changed the runtime's own state before: a GPU ignores such a store, and a kernel that tested
// for it passed on the CPU only, or a right kernel failed (red team, round 8). Now the store
// faults, and the program says so (on_fault): the CPU backend leaves the kernel to a GPU.
struct KernelView {
    LaunchHead head;
    uint3 thread_idx[1024];
};
inline KernelView *g_view = nullptr;
inline const KernelView *g_view_read_only = nullptr;
inline struct sigaction g_previous_segv;

}  // namespace gg

extern "C" {
inline const ::gg::LaunchHead *_GG_launch_view = nullptr;
extern const int _GG_warp_size;
extern char _GG_constant_begin[] __attribute__((weak));  // the __constant__ variables (shared.ld)
extern char _GG_constant_end[] __attribute__((weak));
}

namespace gg {

inline bool in_builtins(const void *address) {
    const char *at = static_cast<const char *>(address);
    const char *view = reinterpret_cast<const char *>(g_view_read_only);
    const char *warp = reinterpret_cast<const char *>(&_GG_warp_size);
    return (view != nullptr && at >= view && at < view + sizeof(KernelView)) ||
           (at >= warp && at < warp + sizeof(int));
}

inline bool in_constants(const void *address) {
    const char *at = static_cast<const char *>(address);
    return _GG_constant_begin != nullptr && at >= _GG_constant_begin && at < _GG_constant_end;
}

inline void say_and_exit(const char *message, std::size_t size) {
    const ssize_t written = write(2, message, size);
    (void)written;
    _exit(71);
}

// What the CPU backend cannot run alike, said as the grader reads it (cpu_failures.unsupported):
// the kernel is left to a GPU.
[[noreturn]] inline void unsupported(const char *what) {
    std::fprintf(stderr, "GRADER-CPU-UNSUPPORTED: %s\n", what);
    std::fflush(stderr);
    _exit(71);
}

inline bool in_guards(const void *address);  // below, with shared.ld's symbols
inline void protect_guards();

inline void on_fault(int, siginfo_t *info, void *) {
    static const char builtin[] =
        "GRADER-CPU-UNSUPPORTED: the kernel writes one of CUDA's built-in variables (threadIdx, "
        "blockIdx, blockDim, gridDim, warpSize) through a cast: a GPU ignores such a store, which "
        "the CPU backend cannot do alike\n";
    static const char constant[] =
        "GRADER-CPU-UNSUPPORTED: the kernel writes a __constant__ variable, which is read-only on "
        "a GPU (a store traps there, or is dropped): keep what the kernel writes in global or "
        "shared memory\n";
    static const char outside[] =
        "GRADER-CPU-ERROR: an access outside the block's shared memory (past its last "
        "__shared__ array, or below the 1 KB a GPU reserves under them): a GPU faults on it, or, "
        "within the 128-byte unit it allocates shared memory in, reads whatever was left there\n";
    if (in_guards(info->si_addr)) {
        const ssize_t written = write(2, outside, sizeof outside - 1);
        (void)written;
        _exit(70);
    }
    if (in_builtins(info->si_addr)) say_and_exit(builtin, sizeof builtin - 1);
    if (in_constants(info->si_addr)) say_and_exit(constant, sizeof constant - 1);
    sigaction(SIGSEGV, &g_previous_segv, nullptr);  // the access faults again, as before
}

inline void map_view() {
    if (g_view != nullptr) return;
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t size = (sizeof(KernelView) + page - 1) / page * page;
    void *writable = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (writable == MAP_FAILED) fail("cannot map the built-ins' memory");
    void *read_only = mremap(writable, 0, size, MREMAP_MAYMOVE);  // the same pages, again
    if (read_only == MAP_FAILED || mprotect(read_only, size, PROT_READ) != 0)
        fail("cannot map the built-ins' memory read-only");
    if (_GG_constant_begin != nullptr && _GG_constant_end > _GG_constant_begin &&
        mprotect(_GG_constant_begin, _GG_constant_end - _GG_constant_begin, PROT_READ) != 0)
        fail("cannot make the __constant__ variables read-only");
    protect_guards();
    g_view = static_cast<KernelView *>(writable);
    g_view_read_only = static_cast<const KernelView *>(read_only);
    _GG_launch_view = &g_view_read_only->head;
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_segv);
}

// The running thread, here and in the kernel's view.
inline void set_current(Launch &l, Thread &t) {
    l.current = &t;
    g_view->head.thread_idx = t.view_idx;
}

}  // namespace gg

// warpSize, defined in assembly: its value is out of the kernel's compiler's sight, as CUDA's is
// (a constant expression on the CPU would be a tell: red team, round 6)
__asm__(".pushsection .rodata\n.globl _GG_warp_size\n.type _GG_warp_size, @object\n"
        ".size _GG_warp_size, 4\n.balign 4\n_GG_warp_size:\n.long 32\n.popsection");

// A block's shared memory lies between _GG_shared_begin and _GG_shared_end (the reserved KB, then
// the arrays), which shared.ld places between its guards (from _GG_guards_begin to
// _GG_guards_end). A program linked without it (the runtime's own tests) has none of these, no
// reserved KB and no guards. (__start_ and __stop_gg_shared exist only where some array does.)
extern "C" char __start_gg_shared[] __attribute__((weak));
extern "C" char __stop_gg_shared[] __attribute__((weak));
extern "C" char _GG_shared_begin[] __attribute__((weak));
extern "C" char _GG_shared_end[] __attribute__((weak));
extern "C" char _GG_guards_begin[] __attribute__((weak));
extern "C" char _GG_guards_end[] __attribute__((weak));

namespace gg {

inline char *shared_section() { return _GG_shared_begin != nullptr ? _GG_shared_begin : __start_gg_shared; }

inline std::size_t shared_section_size() {
    const char *end = _GG_shared_end != nullptr ? _GG_shared_end : __stop_gg_shared;
    return shared_section() == nullptr ? 0 : static_cast<std::size_t>(end - shared_section());
}

// The fast build has no sanitizer to poison shared.ld's guards. Their whole pages (shared.ld ends
// the arrays on a page) are made inaccessible before the first launch (protect_guards): an access
// there faults, as one past a block's shared memory does on a GPU, and on_fault says so. As in the
// checked build, a read the kernel makes there fails even where its value is unused (which NVVM
// may remove). What is left of a page at either end of the block's shared memory (below the
// reserved KB; past the arrays where their alignment kept them from the page's end) holds bytes
// that change from launch to launch, 0xFF (a float reads NaN), 0x7F (3.4e38), 0xC7 (-102286.5),
// and a byte changed there by the launch's end was a store outside the block's shared memory.
// (Red team, rounds 13 and 14: a read past the last array got 0.0f, or a NaN a comparison
// dropped; a store put back before the launch ended went unseen: an off-by-one passed, 100/100,
// where a GPU faults.)
inline unsigned char guard_byte(unsigned seed) {
    static const unsigned char bytes[3] = {0xFF, 0x7F, 0xC7};
    return bytes[seed % 3];
}

inline std::uintptr_t page_size() { return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)); }

inline char *page_down(char *at) {
    return reinterpret_cast<char *>(reinterpret_cast<std::uintptr_t>(at) & ~(page_size() - 1));
}

inline char *page_up(char *at) { return page_down(at + page_size() - 1); }

inline bool in_guards(const void *address) {
    const char *at = static_cast<const char *>(address);
    return _GG_guards_begin != nullptr && at >= _GG_guards_begin && at < _GG_guards_end &&
           !(at >= _GG_shared_begin && at < _GG_shared_end);
}

inline void protect_guards() {
#if !GG_ASAN
    if (_GG_guards_begin == nullptr) return;
    char *below = page_down(_GG_shared_begin), *above = page_up(_GG_shared_end);
    if (mprotect(_GG_guards_begin, static_cast<std::size_t>(below - _GG_guards_begin), PROT_NONE) != 0 ||
        mprotect(above, static_cast<std::size_t>(_GG_guards_end - above), PROT_NONE) != 0)
        fail("cannot protect the guards around the block's shared memory");
#endif
}

inline void fill_guards(unsigned seed) {
#if !GG_ASAN
    if (_GG_guards_begin == nullptr) return;
    const unsigned char byte = guard_byte(seed);
    char *below = page_down(_GG_shared_begin), *above = page_up(_GG_shared_end);
    std::memset(below, byte, static_cast<std::size_t>(_GG_shared_begin - below));
    std::memset(_GG_shared_end, byte, static_cast<std::size_t>(above - _GG_shared_end));
#else
    (void)seed;
#endif
}

inline bool guards_kept(unsigned seed) {
#if !GG_ASAN
    if (_GG_guards_begin == nullptr) return true;
    const char byte = static_cast<char>(guard_byte(seed));
    for (const char *p = page_down(_GG_shared_begin); p < _GG_shared_begin; ++p)
        if (*p != byte) return false;
    for (const char *p = _GG_shared_end; p < page_up(_GG_shared_end); ++p)
        if (*p != byte) return false;
#else
    (void)seed;
#endif
    return true;
}

// Copies between the section and a block's copy of it, which stay between the guards.
inline void copy_bytes(char *to, const char *from, std::size_t size) { std::memcpy(to, from, size); }

// Switching. Threads hand over to each other directly: a thread that blocks (at a barrier or a
// warp operation) or finishes jumps straight to the next ready thread in the round's order, and
// only the last one jumps back to the scheduler; one switch per thread and phase instead of two.
// Whoever switches saves itself in its own slot (a Thread's context, or the scheduler's), and
// makes the thread it resumes the current one. Where nothing is left to do once a thread is
// resumed (no sanitizer's bookkeeping), the switch is the last thing hand_over does, a jump: the
// resumed thread returns from the switch straight into its kernel, through no frame of the
// runtime's (about 15 ns less per __syncthreads(), a third of ex1's time since the kernel calls
// the runtime from its own unit).
inline void arrived(Launch &l, Thread &self) {
#if GG_ASAN
    const void *bottom = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(self.fake_stack, &bottom, &size);
    if (l.from_scheduler) {
        l.main_bottom = bottom;
        l.main_size = size;
    }
#endif
}

inline void hand_over(Launch &l, Thread &self) {
    unsigned n = l.position + 1;
    while (n < l.count && l.threads[l.order[n]].state != State::Ready) ++n;
#if GG_ASAN
    void **fake = self.state == State::Done ? nullptr : &self.fake_stack;
#endif
#if GG_ASAN
    l.from_scheduler = false;
#endif
    if (n < l.count) {
        Thread &next = l.threads[l.order[n]];
        // the fiber after the next one: its saved registers are on a stack of their own, which
        // the switch to it would otherwise wait for (ex1's and ex4's solutions ran 1.2-1.3x
        // faster with this)
        if (n + 1 < l.count) {
            const char *after = static_cast<const char *>(l.threads[l.order[n + 1]].context);
            __builtin_prefetch(after);
            __builtin_prefetch(after + 64);
        }
        l.position = n;
        set_current(l, next);
#if GG_ASAN
        __sanitizer_start_switch_fiber(fake, next.stack_bottom, next.stack_size);
#endif
        swap_fiber(&self.context, next.context);
    } else {
#if GG_ASAN
        __sanitizer_start_switch_fiber(fake, l.main_bottom, l.main_size);
#endif
        swap_fiber(&self.context, l.scheduler);
    }
#if GG_ASAN
    arrived(l, self);
#endif
}

// Runs every ready thread once, in order, starting at position `start`.
inline void run_round(Launch &l, const unsigned *order, unsigned start) {
    Thread &first = l.threads[order[start]];
    l.order = order;
    l.position = start;
    set_current(l, first);
#if GG_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, first.stack_bottom, first.stack_size);
    l.from_scheduler = true;
#endif
    swap_fiber(&l.scheduler, first.context);
#if GG_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    l.current = nullptr;
}

inline void fiber_entry() {
    Launch &l = launch_state();
    Thread &self = *l.current;  // set by whoever jumped here
    arrived(l, self);
    l.body(l.body_context);
    self.state = State::Done;
    ++l.running->done;
    hand_over(l, self);
    std::abort();  // a finished fiber is never resumed
}

inline void allocate_stacks(Launch &l, std::size_t count) {
    if (l.stack_count >= count) return;
    if (l.stacks) munmap(l.stacks, l.stacks_bytes);
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t each = l.stack_size + page;
    void *memory = mmap(nullptr, each * count, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) fail("cannot allocate fiber stacks");
    l.stacks = static_cast<char *>(memory);
    l.stacks_bytes = each * count;
    for (std::size_t i = 0; i < count; ++i) {
        // the lowest page of each stack is a guard: an overflow faults instead of corrupting
        mprotect(l.stacks + i * each, page, PROT_NONE);
    }
    l.stack_count = count;
}

inline void resolve_warps(Launch &l, bool &progressed) {
    char message[256];
    const unsigned count = l.count;
    for (unsigned base = 0; base < count; base += 32) {
        for (unsigned lane = 0; lane < 32 && base + lane < count; ++lane) {
            Thread &first = l.threads[base + lane];
            if (first.state != State::AtWarp) continue;
            const unsigned mask = first.mask;
            bool ready = true;
            for (unsigned other = 0; other < 32; ++other) {
                if (!(mask >> other & 1u)) continue;
                if (base + other >= count) {
                    GG_FORMAT(message, "warp operation at line %d: its mask names lane %u, which does not exist in this block", first.line, other);
                    fail(message);
                }
                Thread &o = l.threads[base + other];
                if (o.state == State::Done) {
                    GG_FORMAT(message, "warp operation at line %d: its mask names lane %u, which has already exited", first.line, other);
                    fail(message);
                }
                if (o.state != State::AtWarp) { ready = false; continue; }
                if (o.mask != mask || o.op != first.op) {
                    GG_FORMAT(message, "lanes of one warp meet different warp operations or masks at line %d and line %d", first.line, o.line);
                    fail(message);
                }
            }
            if (!ready) continue;
            std::uint64_t ballot = 0;
            bool any = false, all = true;
            for (unsigned other = 0; other < 32; ++other) {
                if (!(mask >> other & 1u)) continue;
                const bool bit = l.threads[base + other].value != 0;
                ballot |= static_cast<std::uint64_t>(bit) << other;
                any = any || bit;
                all = all && bit;
            }
            for (unsigned other = 0; other < 32; ++other) {
                if (!(mask >> other & 1u)) continue;
                Thread &t = l.threads[base + other];
                const int me = static_cast<int>(other);
                const int width = t.width;
                const int segment = me / width * width;
                int source = me;
                switch (t.op) {
                    case WarpOp::Shfl: source = segment + ((t.lane_arg % width) + width) % width; break;
                    case WarpOp::ShflUp: source = me - t.lane_arg < segment ? me : me - t.lane_arg; break;
                    case WarpOp::ShflDown: source = me + t.lane_arg >= segment + width ? me : me + t.lane_arg; break;
                    case WarpOp::ShflXor: source = (me ^ t.lane_arg) >= segment + width ? me : (me ^ t.lane_arg); break;
                    default: break;
                }
                if (t.op == WarpOp::Ballot) t.result = ballot;
                else if (t.op == WarpOp::Any) t.result = any;
                else if (t.op == WarpOp::All) t.result = all;
                else if (t.op != WarpOp::Sync) {
                    if (!(mask >> source & 1u)) {
                        GG_FORMAT(message, "shuffle at line %d reads lane %d, which is not in the mask", t.line, source);
                        fail(message);
                    }
                    t.result = l.threads[base + static_cast<unsigned>(source)].value;
                }
            }
            for (unsigned other = 0; other < 32; ++other) {
                if (!(mask >> other & 1u)) continue;
                l.threads[base + other].state = State::Ready;
                --l.running->at_warp;
            }
            progressed = true;
        }
    }
}

// Runs the running block up to its next barrier: until every thread waits at a __syncthreads()
// or has finished (warp operations are resolved on the way). Releases the barrier and returns
// false, or returns true when every thread has finished.
inline bool run_phase(Launch &l) {
    char message[256];
    const unsigned count = l.count;
    const unsigned *order = l.order;
    for (;;) {
        unsigned start = 0;
        while (start < count && l.threads[order[start]].state != State::Ready) ++start;
        if (start < count) run_round(l, order, start);
        Block &b = *l.running;
        if (b.done == count) return true;
        if (b.at_warp) {
            bool progressed = false;
            resolve_warps(l, progressed);
            if (progressed) continue;
            GG_FORMAT(message, "a warp operation at line %d waits for lanes that never arrive (they wait at __syncthreads() or took another path)", b.warp_line);
            fail(message);
        }
        if (b.other_line) {
            const int low = b.first_line < b.other_line ? b.first_line : b.other_line;
            const int high = b.first_line < b.other_line ? b.other_line : b.first_line;
            GG_FORMAT(message, "barrier divergence: threads of one block wait at different __syncthreads() calls, line %d and line %d (every thread of a block must reach the same barrier)", low, high);
            fail(message);
        }
        if (b.done) {
            GG_FORMAT(message, "some threads exited while others of their block wait at __syncthreads() on line %d (allowed since Volta, but fragile)", b.first_line);
            warn_once(message);
        }
        for (unsigned i = 0; i < count; ++i) {
            if (l.threads[i].state == State::AtBarrier) l.threads[i].state = State::Ready;
        }
        b.at_barrier = 0;
        b.first_line = b.other_line = 0;
        return false;
    }
}

enum class Order { Ascending = 0, Descending = 1, Shuffle = 2 };

struct Random {  // xorshift64
    std::uint64_t state;
    unsigned below(unsigned n) {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17;
        return static_cast<unsigned>(state % n);
    }
    void shuffle(unsigned *values, unsigned n) {  // Fisher-Yates
        for (unsigned i = n ? n - 1 : 0; i > 0; --i) {
            const unsigned j = below(i + 1);
            const unsigned swap = values[i]; values[i] = values[j]; values[j] = swap;
        }
    }
};

// Makes block `slot` the running one: its shared memory into the section (the section's
// previous block's saved first), its threads and blockIdx into the launch.
inline void switch_to(Launch &l, unsigned slot) {
    Block &b = l.blocks[slot];
    if (l.in_section != static_cast<int>(slot)) {
        const std::size_t size = shared_section_size();
        if (size) {
            if (l.in_section >= 0) copy_bytes(l.blocks[l.in_section].shared, shared_section(), size);
            copy_bytes(shared_section(), b.shared, size);
        }
        l.in_section = static_cast<int>(slot);
    }
    g_view->head.block_idx = b.idx;
    l.running = &b;
    l.threads = b.threads;
    l.order = b.visit;
    l.dynamic_shared = b.dynamic_shared;
}

// Starts block `linear` (of the grid, x fastest) in slot `slot`: fresh fibers, the thread order,
// shared memory poisoned (0xFF bytes read as NaN in float: a value read before any thread of
// this block wrote it).
inline void start_block(Launch &l, unsigned slot, unsigned linear, Order order, Random &threads,
                        std::size_t dynamic_size) {
    Block &b = l.blocks[slot];
    const unsigned count = l.count;
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    b.idx = uint3{linear % l.grid.x, linear / l.grid.x % l.grid.y, linear / l.grid.x / l.grid.y};
    for (unsigned i = 0; i < count; ++i) {
        Thread &t = b.threads[i];
        t.state = State::Ready;
        t.reductions = 0;
        t.stack_bottom = l.stacks + (std::size_t(slot) * count + i) * (l.stack_size + page) + page;
        t.stack_size = l.stack_size;
        // Stacks are a page-aligned size apart, so their tops would share a few cache sets, and
        // every switch would miss in the cache: each starts a different number of cache lines
        // below its top (ex1's solution ran 1.1-1.3x faster).
        const std::size_t colour = (i % 256) * 64;
        t.context = make_fiber(t.stack_bottom + t.stack_size - colour, t.stack_size - colour, fiber_entry);
    }
    if (order == Order::Shuffle) threads.shuffle(b.visit, count);
    if (b.shared) std::memset(b.shared, 0xFF, shared_section_size());
    if (b.dynamic_shared) std::memset(b.dynamic_shared, 0xFF, dynamic_size);
    b.round = 0;
    b.done = b.at_barrier = b.at_warp = 0;
    b.first_line = b.other_line = b.warp_line = 0;
    if (l.in_section == static_cast<int>(slot)) l.in_section = -1;  // the section holds the old block's
    b.live = true;
}

// The number of blocks resident at once: as many as hold 512 threads in all, at least 2 and at
// most 8; all of a smaller grid. More resident fibers outgrow the L2 cache: with blocks of 256
// threads, ex1's kernel at 512^3 ran 2-7% slower than one block at a time with 2 resident, 20-27%
// with 4, 45-90% with 8.
inline unsigned resident_blocks(unsigned count, unsigned total) {
    unsigned resident = 512 / count;
    if (resident > 8) resident = 8;
    if (resident < 2) resident = 2;
    return resident < total ? resident : total;
}

// The order the grid's blocks start in: its rows (blocks of one blockIdx.y and .z) in a seeded
// shuffled order; each row from a seeded column, in a seeded direction, wrapping around. Not
// row-major, yet neighbouring blocks run together as on a GPU, sharing the cache lines of A and
// B they read (a shuffle of the whole grid made ex1's kernel 25-33% slower).
inline void grid_order(const dim3 &grid, unsigned total, Random &random, unsigned *out) {
    const unsigned width = grid.x, rows = total / grid.x;
    unsigned *row_order = new unsigned[rows];
    for (unsigned r = 0; r < rows; ++r) row_order[r] = r;
    random.shuffle(row_order, rows);
    for (unsigned r = 0; r < rows; ++r) {
        const unsigned first = random.below(width);
        const bool backwards = random.below(2) != 0;
        for (unsigned x = 0; x < width; ++x) {
            const unsigned column = backwards ? (first + width - x) % width : (first + x) % width;
            out[std::size_t(r) * width + x] = row_order[r] * width + column;
        }
    }
    delete[] row_order;
}

inline void launch(dim3 grid, dim3 block, std::size_t dynamic_shared, Order order, unsigned seed,
                   Body body, void *body_context) {
    Launch &l = launch_state();
    const unsigned count = block.x * block.y * block.z;
    if (count == 0 || count > 1024) fail("a block must hold 1 to 1024 threads");
    const std::uint64_t total64 = std::uint64_t(grid.x) * grid.y * grid.z;
    if (total64 > (1u << 28)) fail("the grid has too many blocks for the CPU backend");
    const unsigned total = static_cast<unsigned>(total64);
    if (total == 0) return;
    const unsigned resident = resident_blocks(count, total);
    map_view();
    l.grid = grid;
    g_view->head.grid = grid;
    g_view->head.block = block;
    l.body = body;
    l.body_context = body_context;
    l.count = count;
    l.resident = resident;
    l.in_section = -1;
    allocate_stacks(l, std::size_t(count) * resident);
    const std::size_t shared_size = shared_section_size();
    fill_guards(seed);
    Thread *threads = new Thread[std::size_t(count) * resident];
    unsigned *visits = new unsigned[std::size_t(count) * resident];
    l.blocks = new Block[resident];
    for (unsigned s = 0; s < resident; ++s) {
        Block &b = l.blocks[s];
        b.threads = threads + std::size_t(s) * count;
        b.visit = visits + std::size_t(s) * count;
        for (unsigned z = 0, i = 0; z < block.z; ++z)
            for (unsigned y = 0; y < block.y; ++y)
                for (unsigned x = 0; x < block.x; ++x, ++i) {
                    b.threads[i].linear = i;
                    b.threads[i].view_idx = &g_view_read_only->thread_idx[i];
                    if (s == 0) g_view->thread_idx[i] = uint3{x, y, z};
                }
        for (unsigned i = 0; i < count; ++i) b.visit[i] = order == Order::Descending ? count - 1 - i : i;
        b.shared = shared_size ? static_cast<char *>(std::malloc(shared_size)) : nullptr;
        // exactly the launch's size: AddressSanitizer (checked mode) reports an access past it
        b.dynamic_shared = dynamic_shared ? std::malloc(dynamic_shared) : nullptr;
    }
    // Two streams from the seed: the threads' shuffles, and the blocks' order.
    Random thread_random{seed * 0x9E3779B97F4A7C15ull + 1};
    Random block_random{(seed ^ 0x5BD1E995u) * 0xD6E8FEB86659FD93ull + 3};
    unsigned *blocks_in_order = new unsigned[total];
    grid_order(grid, total, block_random, blocks_in_order);
    unsigned next = 0, live = 0;
    for (unsigned s = 0; s < resident; ++s, ++live) {
        start_block(l, s, blocks_in_order[next++], order, thread_random, dynamic_shared);
    }
    unsigned sweep[8];
    for (unsigned s = 0; s < resident; ++s) sweep[s] = s;
    while (live) {
        // one phase of every resident block, in a fresh shuffled order
        block_random.shuffle(sweep, resident);
        for (unsigned v = 0; v < resident; ++v) {
            const unsigned s = sweep[v];
            if (!l.blocks[s].live) continue;
            switch_to(l, s);
            if (!run_phase(l)) continue;
            l.in_section = -1;  // a finished block's shared memory is not kept
            if (next < total) {
                start_block(l, s, blocks_in_order[next++], order, thread_random, dynamic_shared);
            } else {
                l.blocks[s].live = false;
                --live;
            }
        }
    }
    delete[] blocks_in_order;
    for (unsigned s = 0; s < resident; ++s) {
        std::free(l.blocks[s].shared);
        std::free(l.blocks[s].dynamic_shared);
    }
    delete[] l.blocks;
    delete[] visits;
    delete[] threads;
    l.blocks = nullptr;
    l.running = nullptr;
    l.threads = nullptr;
    l.order = nullptr;
    l.dynamic_shared = nullptr;
    l.resident = 0;
    if (!guards_kept(seed))
        fail("a store outside the block's shared memory (past its last __shared__ array, or below "
             "the 1 KB a GPU reserves under them): a GPU faults on it, or, within the 128-byte "
             "unit it allocates shared memory in, leaves it for the next block to read");
}

inline void *dynamic_shared() { return launch_state().dynamic_shared; }

inline void sync_threads(int line) {
    Launch &l = launch_state();
    Thread &t = *l.current;
    Block &b = *l.running;
    t.state = State::AtBarrier;
    t.line = line;
    if (b.at_barrier++ == 0) b.first_line = line;
    else if (line != b.first_line) b.other_line = line;
    hand_over(l, t);
}

// __syncthreads_count (which 0), _and (1), _or (2): a barrier, every live thread's predicate
// gathered into its block, a second barrier, the answer. The first thread past the first barrier
// of a call starts the gathering; the second barrier lets every thread read it before the next
// call's first barrier lets anyone start that one.
inline int sync_reduce(int predicate, int which, int line) {
    Launch &l = launch_state();
    sync_threads(line);
    Block &b = l.blocks[l.in_section];
    Thread &t = *l.current;
    if (b.round != t.reductions + 1) {
        b.round = t.reductions + 1;
        b.count = 0;
        b.all = 1;
        b.any = 0;
    }
    const int p = predicate != 0;
    b.count += p;
    b.all &= p;
    b.any |= p;
    ++t.reductions;
    sync_threads(line);
    return which == 0 ? b.count : which == 1 ? b.all : b.any;
}

inline std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int lane_arg, int width,
                             int line) {
    char message[256];
    Thread &t = *launch_state().current;
    if (width <= 0 || width > 32 || (width & (width - 1))) {
        GG_FORMAT(message, "warp operation at line %d: width must be a power of two up to 32", line);
        fail(message);
    }
    const unsigned lane = t.linear % 32;
    if (!(mask >> lane & 1u)) {
        GG_FORMAT(message, "warp operation at line %d: the calling lane %u is not in its own mask", line, lane);
        fail(message);
    }
    t.state = State::AtWarp;
    ++launch_state().running->at_warp;
    launch_state().running->warp_line = line;
    t.op = op;
    t.mask = mask;
    t.value = value;
    t.lane_arg = lane_arg;
    t.width = width;
    t.line = line;
    hand_over(launch_state(), t);
    return t.result;
}

}  // namespace gg


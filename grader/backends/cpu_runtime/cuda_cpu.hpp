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

// CUDA's two types, as its vector_types.h declares them: two types (a kernel that told them
// apart passed on the CPU only while uint3 was dim3 here: red team, round 5), and at global
// scope, so that no value a kernel can name has a namespace of the runtime's among its
// associated ones (in namespace gg, argument-dependent lookup of a call with a Conv<uint3>
// argument found gg's functions on the CPU only: round 6)
struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

namespace gg {

enum class State { Ready, AtBarrier, AtWarp, Done };
enum class WarpOp { Sync, Shfl, ShflUp, ShflDown, ShflXor, Ballot, Any, All };

struct Thread {
    uint3 idx{};
    unsigned linear = 0;
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
    // block_idx, threads, order and dynamic_shared are the running block's, copied from its
    // Block on every switch (so that threadIdx and blockIdx cost one load)
    dim3 grid, block;
    uint3 block_idx{};
    Thread *threads = nullptr;
    unsigned count = 0;
    Body body = nullptr;
    void *body_context = nullptr;
    Thread *current = nullptr;
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

// One launch at a time per process; an inline variable, so that threadIdx costs one load.
inline Launch g_launch;
inline Launch &launch_state() { return g_launch; }

}  // namespace gg

// ---- CUDA's names -----------------------------------------------------------------------------
// Each as CUDA declares it (`extern const __device__ uint3 threadIdx`, `... int warpSize`): a
// const lvalue. As modifiable lvalues (and warpSize as the prvalue 32), an overload on
// `unsigned &` or `int &&` was taken on the CPU only, and a kernel could write the launch's own
// state (red team, round 6). warpSize is defined in assembly, its value out of the compiler's
// sight: a constant expression on the CPU would be another tell (CUDA's is not one).
#define threadIdx (static_cast<const ::uint3 &>(::gg::g_launch.current->idx))
#define blockIdx (static_cast<const ::uint3 &>(::gg::g_launch.block_idx))
#define blockDim (static_cast<const ::dim3 &>(::gg::g_launch.block))
#define gridDim (static_cast<const ::dim3 &>(::gg::g_launch.grid))
namespace gg {
extern const int warp_size __asm__("_GG_warp_size");
}  // namespace gg
__asm__(".pushsection .rodata\n.globl _GG_warp_size\n.type _GG_warp_size, @object\n"
        ".size _GG_warp_size, 4\n.balign 4\n_GG_warp_size:\n.long 32\n.popsection");
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
#define __constant__ static
// Shared arrays live in their own section; every resident block has its own copy of it, swapped
// in when the block runs (switch_to) and poisoned when it starts. (AddressSanitizer leaves
// variables in named sections alone; in checked mode UBSan's bounds check still reports an index
// outside a shared array, and the guards around the section, an access outside them all.)
#define __shared__ static __attribute__((section("gg_shared")))

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

// Copies between the section and a block's copy of it, which stay between the guards.
inline void copy_bytes(char *to, const char *from, std::size_t size) { std::memcpy(to, from, size); }

// Switching. Threads hand over to each other directly: a thread that blocks (at a barrier or a
// warp operation) or finishes jumps straight to the next ready thread in the round's order, and
// only the last one jumps back to the scheduler; one switch per thread and phase instead of two.
// Whoever switches saves itself in its own slot (a Thread's context, or the scheduler's).
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
    l.current = &self;
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
        l.current = &next;
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
    arrived(l, self);
}

// Runs every ready thread once, in order, starting at position `start`.
inline void run_round(Launch &l, const unsigned *order, unsigned start) {
    Thread &first = l.threads[order[start]];
    l.order = order;
    l.position = start;
    l.current = &first;
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
    l.block_idx = b.idx;
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
    l.grid = grid;
    l.block = block;
    l.body = body;
    l.body_context = body_context;
    l.count = count;
    l.resident = resident;
    l.in_section = -1;
    allocate_stacks(l, std::size_t(count) * resident);
    const std::size_t shared_size = shared_section_size();
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
                    b.threads[i].idx = uint3{x, y, z};
                    b.threads[i].linear = i;
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

template <class T> std::uint64_t bits_of(T value) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
    std::uint64_t out = 0;
    std::memcpy(&out, &value, sizeof(T));
    return out;
}
template <class T> T from_bits(std::uint64_t value) {
    T out;
    std::memcpy(&out, &value, sizeof(T));
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
inline std::uint64_t predicate_(int pred) { return pred != 0; }
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

// ---- vector types, with CUDA's alignment (a misaligned vector load is UB that UBSan reports) ---
struct alignas(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct int3 { int x, y, z; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }

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
inline float max(float a, float b) { return std::fmax(a, b); }
inline float min(float a, float b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }
inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
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
    inline int NAME(float x) { return std::NAME(x); }                                               \
    inline int NAME(double x) { return std::NAME(x); }                                              \
    inline int NAME(long double x) { return std::NAME(static_cast<double>(x)); }
GG_CLASSIFY(signbit)
GG_CLASSIFY(isfinite)
GG_CLASSIFY(isnan)
GG_CLASSIFY(isinf)
#undef GG_CLASSIFY
inline long long abs(long long a) { return std::llabs(a); }
inline long abs(long a) { return std::llabs(a); }
inline float abs(float a) { return std::fabs(a); }
inline double abs(double a) { return std::fabs(a); }
#define GG_FLOAT_1(NAME) inline float NAME(float a) { return std::NAME(a); }
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
inline float pow(float a, float b) { return std::pow(a, b); }
inline float pow(float a, int b) { return static_cast<float>(std::pow(static_cast<double>(a), b)); }
inline double pow(double a, int b) { return std::pow(a, b); }
inline float fmod(float a, float b) { return std::fmod(a, b); }
inline float modf(float a, float *b) { return std::modf(a, b); }
inline float frexp(float a, int *b) { return std::frexp(a, b); }
inline float ldexp(float a, int b) { return std::ldexp(a, b); }
inline float atan2(float a, float b) { return std::atan2(a, b); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
// As the GPU computes it (CUDA's programming guide): a * (1/b), which is 0 for
// 2^126 < |b| < 2^128, and NaN when a is infinite there too.
inline float __fdividef(float a, float b) {
    const float magnitude = std::fabs(b);
    if (magnitude > 0x1p126f && magnitude < INFINITY) return std::isinf(a) ? NAN : 0.0f * a;
    return a / b;
}
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float rsqrtf(float a) { return 1.0f / std::sqrt(a); }
inline float __expf(float a) { return std::exp(a); }
inline float __logf(float a) { return std::log(a); }
inline float __sinf(float a) { return std::sin(a); }
inline float __cosf(float a) { return std::cos(a); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __saturatef(float a) { return !(a > 0.0f) ? 0.0f : (a > 1.0f ? 1.0f : a); }  // NaN: 0
inline int __float_as_int(float a) { int i; std::memcpy(&i, &a, 4); return i; }
inline float __int_as_float(int i) { float a; std::memcpy(&a, &i, 4); return a; }
inline unsigned __float_as_uint(float a) { unsigned i; std::memcpy(&i, &a, 4); return i; }
inline float __uint_as_float(unsigned i) { float a; std::memcpy(&a, &i, 4); return a; }
inline long long __double_as_longlong(double a) { long long i; std::memcpy(&i, &a, 8); return i; }
inline double __longlong_as_double(long long i) { double a; std::memcpy(&a, &i, 8); return a; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
template <class T> inline T __ldg(const T *p) { return *p; }
inline void __threadfence() {}
inline void __threadfence_block() {}
// Atomics: fibers of one process never run at once, so a plain read-modify-write is atomic.
template <class T> inline T atomicAdd(T *p, T v) { T old = *p; *p = old + v; return old; }
template <class T> inline T atomicSub(T *p, T v) { T old = *p; *p = old - v; return old; }
template <class T> inline T atomicMax(T *p, T v) { T old = *p; *p = old < v ? v : old; return old; }
template <class T> inline T atomicMin(T *p, T v) { T old = *p; *p = v < old ? v : old; return old; }
template <class T> inline T atomicExch(T *p, T v) { T old = *p; *p = v; return old; }
template <class T> inline T atomicCAS(T *p, T compare, T v) { T old = *p; if (old == compare) *p = v; return old; }

#include "cuda_cpu_intrinsics.hpp"

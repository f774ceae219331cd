// The program around a student's kernel: reads the guarded buffers sent by the grader, runs one
// launch with the given geometry and thread order, sends the buffers back, and waits for the
// next request. Everything goes through the pipes the grader holds, never through files (which
// the kernel's process could replace with links to host files). A request is one line on stdin,
//   M K N GUARD GRID_X GRID_Y BLOCK_X BLOCK_Y ORDER SEED CHECKED CPU_MS SIZE_A SIZE_B SIZE_C
// followed by A, B and C (SIZE_* float32 values each, guards included); the reply, on the
// program's original stdout, is "ok\n" followed by A, B and C as they are after the launch.
// CHECKED = 1: A, B and C are copied into buffers of exactly their size, so that AddressSanitizer
// reports any access past them; their addresses go to stderr for the grader to name them.
#include <fcntl.h>
#if GG_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace gg_harness {

// A, B and C as the grader sent them (guards included), one after another in one mapping, each
// at a 512-byte boundary as a GPU's memory pool places allocations made in a row, with an
// inaccessible page before A and after C. A kernel that reads far past A reads B and C, the
// grader's values, never the program's own heap: its pointers read as subnormal floats, slow to
// compute with (a launch took 6.8 s instead of 1.5 s), and they differ from run to run. One that
// runs out of the mapping faults at once.
struct Inputs {
    char *mapping = nullptr;
    std::size_t mapped = 0;
    float *data[3] = {nullptr, nullptr, nullptr};
    std::size_t size[3] = {0, 0, 0};
};

inline std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

inline Inputs read_inputs(const std::size_t (&sizes)[3]) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    std::size_t body = 0;
    for (const std::size_t size : sizes) body += round_up(size * sizeof(float), 512);
    body = round_up(body, page);
    Inputs in;
    in.mapped = body + 2 * page;
    void *mapping = mmap(nullptr, in.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) ::gg::fail("harness: out of memory for the inputs");
    in.mapping = static_cast<char *>(mapping);
    if (mprotect(in.mapping, page, PROT_NONE) != 0 || mprotect(in.mapping + page + body, page, PROT_NONE) != 0)
        ::gg::fail("harness: cannot fence the inputs");
#if GG_ASAN
    // the address range may have held an earlier launch's fiber stacks, still poisoned
    ASAN_UNPOISON_MEMORY_REGION(in.mapping + page, body);
#endif
    char *at = in.mapping + page;
    for (int i = 0; i < 3; ++i) {
        in.data[i] = reinterpret_cast<float *>(at);
        in.size[i] = sizes[i];
        if (std::fread(in.data[i], sizeof(float), sizes[i], stdin) != sizes[i]) ::gg::fail("harness: short read");
        at += round_up(sizes[i] * sizeof(float), 512);
    }
    return in;
}

inline void write_all(int fd, const void *data, std::size_t bytes) {
    const char *at = static_cast<const char *>(data);
    while (bytes > 0) {
        const ssize_t done = write(fd, at, bytes);
        if (done <= 0) std::exit(0);  // the grader has gone
        at += done;
        bytes -= static_cast<std::size_t>(done);
    }
}

// A buffer of exactly `count` floats (AddressSanitizer reports an access past it), at a 256-byte
// boundary as a GPU's allocations are: malloc promises 16 bytes, and a right kernel that reads
// through a 32-byte-aligned type could have failed the alignment check here (red team, round 24).
inline float *exact_copy(std::size_t count) {
    void *buffer = nullptr;
    if (posix_memalign(&buffer, 256, count * sizeof(float) > 0 ? count * sizeof(float) : 1) != 0)
        ::gg::fail("harness: out of memory for the inputs");
    return static_cast<float *>(buffer);
}

struct Arguments {
    const float *a;
    const float *b;
    float *c;
    int m, k, n;
};

inline void run_kernel(void *context) {
    const Arguments &x = *static_cast<const Arguments *>(context);
    GG_KERNEL(x.a, x.b, x.c, x.m, x.k, x.n);
}

}  // namespace gg_harness

namespace gg_harness {

// One launch: its arguments are the fields of one request line (see the top of this file).
inline void run_one(char **argv, int reply) {
    const int m = std::atoi(argv[1]), k = std::atoi(argv[2]), n = std::atoi(argv[3]);
    const std::size_t guard = std::strtoull(argv[4], nullptr, 10);
    const dim3 grid(std::atoi(argv[5]), std::atoi(argv[6]));
    const dim3 block(std::atoi(argv[7]), std::atoi(argv[8]));
    const auto order = static_cast<::gg::Order>(std::atoi(argv[9]));
    const unsigned seed = static_cast<unsigned>(std::strtoul(argv[10], nullptr, 10));
    const bool checked = std::atoi(argv[11]) != 0;

    // CPU time: this launch's allowance (CPU_MS milliseconds) on top of what the earlier ones
    // used, rounded up to the whole second RLIMIT_CPU counts in (SIGXCPU past it)
    rusage used{};
    getrusage(RUSAGE_SELF, &used);
    rlimit cpu{};
    getrlimit(RLIMIT_CPU, &cpu);
    const double spent = double(used.ru_utime.tv_sec + used.ru_stime.tv_sec) +
                         double(used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
    const double allowance = double(std::strtoul(argv[12], nullptr, 10)) / 1000.0;
    const auto allowed = static_cast<rlim_t>(std::ceil(spent + allowance));
    cpu.rlim_cur = allowed < cpu.rlim_max ? allowed : cpu.rlim_max;
    setrlimit(RLIMIT_CPU, &cpu);

    const std::size_t sizes[3] = {std::strtoull(argv[13], nullptr, 10), std::strtoull(argv[14], nullptr, 10),
                                  std::strtoull(argv[15], nullptr, 10)};
    Inputs in = read_inputs(sizes);
    const std::size_t sa = std::size_t(m) * k, sb = std::size_t(k) * n, sc = std::size_t(m) * n;
    float *A = in.data[0] + guard, *B = in.data[1] + guard, *C = in.data[2] + guard;
    float *exact_a = nullptr, *exact_b = nullptr, *exact_c = nullptr;
    if (checked) {
        exact_a = exact_copy(sa);
        exact_b = exact_copy(sb);
        exact_c = exact_copy(sc);
        std::memcpy(exact_a, A, sa * sizeof(float));
        std::memcpy(exact_b, B, sb * sizeof(float));
        std::memcpy(exact_c, C, sc * sizeof(float));
        std::fprintf(stderr, "GRADER-CPU-BUFFERS A=%p B=%p C=%p SHARED=%p-%p\n", static_cast<void *>(exact_a),
                     static_cast<void *>(exact_b), static_cast<void *>(exact_c),
                     static_cast<void *>(_GG_guards_begin), static_cast<void *>(_GG_guards_end));
        A = exact_a;
        B = exact_b;
        C = exact_c;
    }
    Arguments arguments{A, B, C, m, k, n};
    ::gg::launch(grid, block, 0, order, seed, run_kernel, &arguments);
    if (checked) {
        std::memcpy(in.data[0] + guard, exact_a, sa * sizeof(float));
        std::memcpy(in.data[1] + guard, exact_b, sb * sizeof(float));
        std::memcpy(in.data[2] + guard, exact_c, sc * sizeof(float));
    }
    std::fflush(stderr);
    write_all(reply, "ok\n", 3);
    for (int i = 0; i < 3; ++i) write_all(reply, in.data[i], in.size[i] * sizeof(float));
    std::free(exact_a);
    std::free(exact_b);
    std::free(exact_c);
    munmap(in.mapping, in.mapped);
}

}  // namespace gg_harness

// Launches one request at a time, for as long as the grader sends them: `__device__` variables
// keep their values from one launch to the next, as they do on a GPU while the module is loaded.
int main() {
#if GG_ASAN
    // shared.ld's guards around the block's shared memory: an access there is one outside it
    if (_GG_guards_begin != nullptr) {
        ASAN_POISON_MEMORY_REGION(_GG_guards_begin, _GG_shared_begin - _GG_guards_begin);
        ASAN_POISON_MEMORY_REGION(_GG_shared_end, _GG_guards_end - _GG_shared_end);
    }
#endif
    // "ok" and the outputs of each launch go to the original stdout; the kernel's printf nowhere
    // (a read-only /dev/null: the sandbox lets the program open no file for writing)
    const int reply = dup(1);
    const int nowhere = open("/dev/null", O_RDONLY);
    if (reply < 0 || nowhere < 0 || dup2(nowhere, 1) < 0) ::gg::fail("harness: no reply channel");
    char line[8192];
    while (std::fgets(line, sizeof(line), stdin)) {
        char *fields[16] = {nullptr};
        int count = 1;
        for (char *word = std::strtok(line, " \n"); word && count < 16; word = std::strtok(nullptr, " \n"))
            fields[count++] = word;
        if (count != 16) ::gg::fail("harness: a request needs 15 fields");
        gg_harness::run_one(fields, reply);
    }
    return 0;
}

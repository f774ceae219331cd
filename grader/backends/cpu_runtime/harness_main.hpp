// The program around a student's kernel: reads the guarded buffers sent by the grader, runs one
// launch with the given geometry and thread order, sends the buffers back, and waits for the
// next request. Everything goes through the pipes the grader holds, never through files (which
// the kernel's process could replace with links to host files). A request is one line on stdin,
//   M K N GUARD GRID_X GRID_Y BLOCK_X BLOCK_Y ORDER SEED CHECKED CPU_SECONDS SIZE_A SIZE_B SIZE_C
// followed by A, B and C (SIZE_* float32 values each, guards included); the reply, on the
// program's original stdout, is "ok\n" followed by A, B and C as they are after the launch.
// CHECKED = 1: A, B and C are copied into buffers of exactly their size, so that AddressSanitizer
// reports any access past them; their addresses go to stderr for the grader to name them.
#include <fcntl.h>

namespace gg_harness {

struct Floats {
    float *data = nullptr;
    std::size_t size = 0;
};

inline Floats read_floats(std::size_t size) {
    Floats out;
    out.size = size;
    out.data = static_cast<float *>(std::malloc(size * sizeof(float) + 1));
    if (!out.data) ::gg::fail("harness: out of memory for the inputs");
    if (std::fread(out.data, sizeof(float), size, stdin) != size) ::gg::fail("harness: short read");
    return out;
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

    // CPU time: this launch's allowance on top of what the earlier ones used (SIGXCPU past it)
    rusage used{};
    getrusage(RUSAGE_SELF, &used);
    rlimit cpu{};
    getrlimit(RLIMIT_CPU, &cpu);
    const rlim_t spent = static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec);
    const rlim_t allowed = spent + static_cast<rlim_t>(std::strtoul(argv[12], nullptr, 10));
    cpu.rlim_cur = allowed < cpu.rlim_max ? allowed : cpu.rlim_max;
    setrlimit(RLIMIT_CPU, &cpu);

    Floats a = read_floats(std::strtoull(argv[13], nullptr, 10));
    Floats b = read_floats(std::strtoull(argv[14], nullptr, 10));
    Floats c = read_floats(std::strtoull(argv[15], nullptr, 10));
    const std::size_t sa = std::size_t(m) * k, sb = std::size_t(k) * n, sc = std::size_t(m) * n;
    float *A = a.data + guard, *B = b.data + guard, *C = c.data + guard;
    float *exact_a = nullptr, *exact_b = nullptr, *exact_c = nullptr;
    if (checked) {
        exact_a = static_cast<float *>(std::malloc(sa * sizeof(float)));
        exact_b = static_cast<float *>(std::malloc(sb * sizeof(float)));
        exact_c = static_cast<float *>(std::malloc(sc * sizeof(float)));
        std::memcpy(exact_a, A, sa * sizeof(float));
        std::memcpy(exact_b, B, sb * sizeof(float));
        std::memcpy(exact_c, C, sc * sizeof(float));
        std::fprintf(stderr, "GRADER-CPU-BUFFERS A=%p B=%p C=%p\n", static_cast<void *>(exact_a),
                     static_cast<void *>(exact_b), static_cast<void *>(exact_c));
        A = exact_a;
        B = exact_b;
        C = exact_c;
    }
    Arguments arguments{A, B, C, m, k, n};
    ::gg::launch(grid, block, 0, order, seed, run_kernel, &arguments);
    if (checked) {
        std::memcpy(a.data + guard, exact_a, sa * sizeof(float));
        std::memcpy(b.data + guard, exact_b, sb * sizeof(float));
        std::memcpy(c.data + guard, exact_c, sc * sizeof(float));
    }
    std::fflush(stderr);
    write_all(reply, "ok\n", 3);
    write_all(reply, a.data, a.size * sizeof(float));
    write_all(reply, b.data, b.size * sizeof(float));
    write_all(reply, c.data, c.size * sizeof(float));
    std::free(exact_a);
    std::free(exact_b);
    std::free(exact_c);
    std::free(a.data);
    std::free(b.data);
    std::free(c.data);
}

}  // namespace gg_harness

// Launches one request at a time, for as long as the grader sends them: `__device__` variables
// keep their values from one launch to the next, as they do on a GPU while the module is loaded.
int main() {
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

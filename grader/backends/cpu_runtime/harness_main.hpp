// The program around a student's kernel: reads the guarded buffers written by the grader, runs one
// launch with the given geometry and thread order, writes the buffers back, and waits for the
// next request. One request per line on stdin; "ok" on stdout once a launch's outputs are written:
//   DIR M K N GUARD GRID_X GRID_Y BLOCK_X BLOCK_Y ORDER SEED CHECKED CPU_SECONDS
// DIR holds a.bin, b.bin, c.bin (float32, guards included); the program writes a.out, b.out, c.out.
// CHECKED = 1: A, B and C are copied into buffers of exactly their size, so that AddressSanitizer
// reports any access past them; their addresses go to stderr for the grader to name them.
namespace gg_harness {

struct Floats {
    float *data = nullptr;
    std::size_t size = 0;
};

inline Floats read_floats(const char *dir, const char *name) {
    char path[4096];
    std::snprintf(path, sizeof(path), "%s/%s", dir, name);
    std::FILE *file = std::fopen(path, "rb");
    if (!file) ::gg::fail("harness: cannot read an input file");
    std::fseek(file, 0, SEEK_END);
    Floats out;
    out.size = static_cast<std::size_t>(std::ftell(file)) / sizeof(float);
    std::fseek(file, 0, SEEK_SET);
    out.data = static_cast<float *>(std::malloc(out.size * sizeof(float) + 1));
    if (std::fread(out.data, sizeof(float), out.size, file) != out.size) ::gg::fail("harness: short read");
    std::fclose(file);
    return out;
}

inline void write_floats(const char *dir, const char *name, const Floats &floats) {
    char path[4096];
    std::snprintf(path, sizeof(path), "%s/%s", dir, name);
    std::FILE *file = std::fopen(path, "wb");
    if (!file || std::fwrite(floats.data, sizeof(float), floats.size, file) != floats.size) {
        ::gg::fail("harness: cannot write an output file");
    }
    std::fclose(file);
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
inline void run_one(char **argv) {
    const char *dir = argv[1];
    const int m = std::atoi(argv[2]), k = std::atoi(argv[3]), n = std::atoi(argv[4]);
    const std::size_t guard = std::strtoull(argv[5], nullptr, 10);
    const dim3 grid(std::atoi(argv[6]), std::atoi(argv[7]));
    const dim3 block(std::atoi(argv[8]), std::atoi(argv[9]));
    const auto order = static_cast<::gg::Order>(std::atoi(argv[10]));
    const unsigned seed = static_cast<unsigned>(std::strtoul(argv[11], nullptr, 10));
    const bool checked = std::atoi(argv[12]) != 0;

    // CPU time: this launch's allowance on top of what the earlier ones used (SIGXCPU past it)
    rusage used{};
    getrusage(RUSAGE_SELF, &used);
    rlimit cpu{};
    getrlimit(RLIMIT_CPU, &cpu);
    const rlim_t spent = static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec);
    const rlim_t allowed = spent + static_cast<rlim_t>(std::strtoul(argv[13], nullptr, 10));
    cpu.rlim_cur = allowed < cpu.rlim_max ? allowed : cpu.rlim_max;
    setrlimit(RLIMIT_CPU, &cpu);

    Floats a = read_floats(dir, "a.bin");
    Floats b = read_floats(dir, "b.bin");
    Floats c = read_floats(dir, "c.bin");
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
    write_floats(dir, "a.out", a);
    write_floats(dir, "b.out", b);
    write_floats(dir, "c.out", c);
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
    const int reply = dup(1);  // "ok" after each launch goes here; the kernel's printf nowhere
    if (reply < 0 || !std::freopen("/dev/null", "w", stdout)) ::gg::fail("harness: no reply channel");
    char line[8192];
    while (std::fgets(line, sizeof(line), stdin)) {
        char *fields[14] = {nullptr};
        int count = 1;
        for (char *word = std::strtok(line, " \n"); word && count < 14; word = std::strtok(nullptr, " \n"))
            fields[count++] = word;
        if (count != 14) ::gg::fail("harness: a request needs 13 fields");
        gg_harness::run_one(fields);
        std::fflush(stderr);
        if (write(reply, "ok\n", 3) != 3) return 0;
    }
    return 0;
}

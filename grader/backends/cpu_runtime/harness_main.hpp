// The program around a student's kernel: reads the guarded buffers written by the grader, runs one
// launch with the given geometry and thread order, writes the buffers back.
//   usage: PROGRAM DIR M K N GUARD GRID_X GRID_Y BLOCK_X BLOCK_Y ORDER SEED CHECKED
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

int main(int argc, char **argv) {
    if (argc != 13) ::gg::fail("harness: expected 12 arguments");
    const char *dir = argv[1];
    const int m = std::atoi(argv[2]), k = std::atoi(argv[3]), n = std::atoi(argv[4]);
    const std::size_t guard = std::strtoull(argv[5], nullptr, 10);
    const dim3 grid(std::atoi(argv[6]), std::atoi(argv[7]));
    const dim3 block(std::atoi(argv[8]), std::atoi(argv[9]));
    const auto order = static_cast<::gg::Order>(std::atoi(argv[10]));
    const unsigned seed = static_cast<unsigned>(std::strtoul(argv[11], nullptr, 10));
    const bool checked = std::atoi(argv[12]) != 0;

    gg_harness::Floats a = gg_harness::read_floats(dir, "a.bin");
    gg_harness::Floats b = gg_harness::read_floats(dir, "b.bin");
    gg_harness::Floats c = gg_harness::read_floats(dir, "c.bin");
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
    gg_harness::Arguments arguments{A, B, C, m, k, n};
    ::gg::launch(grid, block, 0, order, seed, gg_harness::run_kernel, &arguments);
    if (checked) {
        std::memcpy(a.data + guard, exact_a, sa * sizeof(float));
        std::memcpy(b.data + guard, exact_b, sb * sizeof(float));
        std::memcpy(c.data + guard, exact_c, sc * sizeof(float));
    }
    gg_harness::write_floats(dir, "a.out", a);
    gg_harness::write_floats(dir, "b.out", b);
    gg_harness::write_floats(dir, "c.out", c);
    return 0;
}

"""The CPU backend on kernels written to exercise one feature or one diagnostic each, graded
through the real pipeline on a small copy of ex1 (shapes up to 64)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.children import serving
from grader.course import Exercise, load_course
from grader.grading import grade
from grader.results import Report
from grader.source import KernelSource, read_source
from tests.conftest import ROOT

try:
    check_toolchain()
    NO_TOOLCHAIN = ""
except CpuUnavailableError as exc:
    NO_TOOLCHAIN = str(exc)

# each test builds a kernel with g++ and grades it on the CPU backend
pytestmark = [
    pytest.mark.skipif(bool(NO_TOOLCHAIN), reason=f"CPU backend unavailable: {NO_TOOLCHAIN}"),
    pytest.mark.slow,
]

SMALL_CASES = """  cases:
    - {shape: 1x1x1}
    - {shape: 17x33x65}
    - {shape: 64x48x64}
"""


@pytest.fixture(scope="module", autouse=True)
def _one_child_for_the_module() -> Iterator[None]:
    """The module's gradings share a grading child, as a batch's do (its start-up was a sixth
    of a test here); each test's own build and programs are fresh all the same."""
    with serving():
        yield


@pytest.fixture(scope="module")
def small_ex1(tmp_path_factory: pytest.TempPathFactory) -> Exercise:
    import shutil

    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "course.yaml", root / "course.yaml")
    shutil.copytree(ROOT / "exercises", root / "exercises")
    shutil.copytree(ROOT / "solutions", root / "solutions")
    spec = root / "exercises/ex1-non-square/spec.yaml"
    text = spec.read_text()
    spec.write_text(text[: text.index("  cases:")] + SMALL_CASES)
    return load_course(root).find("ex1")


def _grade(exercise: Exercise, body: str) -> Report:
    source = KernelSource("#define TILE 16\n" + body, "kernel.cu")
    return grade(exercise, source, seed=1, backend="cpu")


def _messages(report: Report) -> str:
    return "\n".join(c.message for c in report.checks) + "\n".join(report.hints)


TILED = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()


def test_the_solution_passes_on_the_cpu_and_the_report_says_so(small_ex1: Exercise) -> None:
    report = grade(small_ex1, read_source(small_ex1.solution), seed=3, backend="cpu")
    assert report.device.backend == "cpu"
    assert "CPU emulation" in str(report.device)
    assert [c.status for c in report.checks] == ["passed"] * 4


def test_a_missing_barrier_is_caught_as_a_race(small_ex1: Exercise) -> None:
    body = TILED.replace(
        "        __syncthreads();  // everyone is done reading", "        // gone", 1
    )
    report = _grade(small_ex1, body)
    assert not report.passed
    assert "threads race" in _messages(report)


def test_barrier_divergence_names_both_lines(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
}
"""
    report = _grade(small_ex1, body)
    message = report.checks[1].message
    assert report.checks[1].status == "failed"
    assert "barrier divergence" in message and "line 5" in message and "line 7" in message


def test_threads_that_exit_before_a_barrier_are_allowed_with_a_warning(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    __syncthreads();
    C[row * N + col] = acc;
}
"""
    report = _grade(small_ex1, body)
    tiny = report.checks[1]
    assert tiny.status == "passed", tiny.message
    warning = "warning: some threads exited while others of their block wait at __syncthreads()"
    assert f"{warning} on line 9" in tiny.message


def test_warp_shuffles_and_ballots_compute_what_cuda_does(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const bool inside = row < M && col < N;
    float acc = 0.0f;
    for (int k = 0; inside && k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    const float neighbour = __shfl_xor_sync(0xffffffffu, acc, 1);
    const float mine = __shfl_xor_sync(0xffffffffu, neighbour, 1);
    const float first = __shfl_sync(0xffffffffu, acc, 0);
    const float lane0 = __shfl_down_sync(0xffffffffu, acc, 0);
    const unsigned who = __ballot_sync(0xffffffffu, inside);
    const int lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    const bool counted = (who >> lane) & 1u;
    __syncwarp();
    const int all = __all_sync(0xffffffffu, 1);
    const int any = __any_sync(0xffffffffu, lane == 31);
    if (inside && counted && all && any && lane0 == acc && first == first) {
        C[row * N + col] = mine;
    }
}
"""
    report = _grade(small_ex1, body)
    assert report.passed, _messages(report)


def test_a_shuffle_whose_lanes_never_arrive_is_reported(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    if (threadIdx.x < 8) {
        float v = __shfl_sync(0xffffffffu, 1.0f, 0);
        C[0] = v;
    }
}
"""
    report = _grade(small_ex1, body)
    assert "mask names lane 8, which has already exited" in report.checks[1].message


@pytest.mark.parametrize(
    ("construct", "named"),
    [
        ('asm volatile("membar.gl;");', "inline PTX (asm)"),
        ("long long t = clock64();", "clock()/clock64()"),
        ("__nanosleep(100);", "__nanosleep()"),
    ],
)
def test_unsupported_constructs_are_refused_with_their_line(
    small_ex1: Exercise, construct: str, named: str
) -> None:
    body = f"""
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {{
    {construct}
}}
"""
    report = _grade(small_ex1, body)
    runtime = report.checks[1]
    # not the kernel's fault: its points wait for a GPU (not lost), and the reason is given
    assert runtime.needs_a_gpu and report.needs_gpu == report.max_score - report.checks[0].score
    assert f"kernel.cu:4: {named} is not supported by the CPU backend" in runtime.message
    assert report.cpu_refuses  # a GPU grading of the same file knows the CPU left it this


def test_cuda_s_integer_min_max_and_float_classification_are_provided(
    small_ex1: Exercise,
) -> None:
    # found by the seventh and eighth walks: isnan, umin, llmax, __brev... were "not declared"
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < (int)umin((unsigned)K, umax(0u, (unsigned)K)); ++k)
            acc += A[row * K + k] * B[k * N + col];
        if (isnan(acc) || isinf(acc) || !isfinite(acc) || !signbit(-1.0f)) acc = 0.0f;
        long long zero = llmax(0LL, llmin(0LL, 5LL)) + ullmin(0ULL, ullmax(0ULL, 1ULL));
        zero += (__brev(1u) != 0x80000000u) + (__float2uint_rz(2.9f) != 2u);
        zero += __float2uint_rz(-1.0f) + (__float2uint_rz(1e10f) != 0xffffffffu);
        C[row * N + col] = acc + (float)zero;
    }
}
"""
    report = _grade(small_ex1, body)
    assert report.passed, _messages(report)


_INTRINSICS = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ __align__(16) float pad[4];
    // an atomic on a local variable traps on a GPU (NVVM writes `trap`): bits is shared, and
    // beside pad aligned alike (arrays of different alignments: g++ lays them out otherwise)
    __shared__ __align__(16) unsigned words[4];
    unsigned &counter = words[0], &bits = words[1];
    int row = __mul24(blockIdx.y, blockDim.y) + threadIdx.y;
    int col = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0) counter = 0, bits = 0xffu + K - K;
    pad[threadIdx.x % 4] = A[0] * 0.0f;  // no constant: NVVM would fold pad away
    __syncthreads();
    atomicInc(&counter, 1000000u);
    unsigned bad = 0;
    atomicAnd(&bits, 0x0fu); bad |= (bits != 0x0fu) << 0;
    bad |= (__mul24(0x00800000, 2) != -16777216) << 1;
    bad |= (__umul24(0x1000001u, 3u) != 3u) << 2;
    bad |= (__mulhi(0x40000000, 8) != 2) << 3;
    bad |= (__umulhi(0xffffffffu, 0xffffffffu) != 0xfffffffeu) << 4;
    bad |= (__popcll(0xffffffffffULL) != 40) << 5;
    bad |= (__clzll(1LL) != 63) << 6;
    bad |= (__ffsll(0x100000000LL) != 33) << 7;
    bad |= (__byte_perm(0x33221100u, 0x77665544u, 0x5410u) != 0x55441100u) << 8;
    bad |= (__funnelshift_l(0x80000000u, 1u, 1u) != 3u) << 9;
    bad |= (__funnelshift_r(2u, 1u, 1u) != 0x80000001u) << 10;
    bad |= (__sad(3, 7, 10u) != 14u) << 11;
    bad |= (__rhadd(3, 4) != 4 || __hadd(-3, -4) != -4) << 12;
    bad |= (__fadd_rd(1.0f, 1e-10f) != 1.0f || __fadd_ru(1.0f, 1e-10f) != 1.00000012f) << 13;
    float third = 1.0f / 3.0f;
    bad |= (__fmul_rz(third, 3.0f) != 1.0f || __fmul_ru(third, 3.0f) != 1.00000012f) << 14;
    int big = 16777217;
    bad |= (__int2float_rz(big) != 16777216.0f || __int2float_ru(big) != 16777218.0f) << 15;
    bad |= (__float2uint_rn(2.5f) != 2u || __double2float_rd(0.1) != 0.099999994f) << 16;
    bad |= (__hiloint2double(0x3ff00000, 0) != 1.0 || __fma_rn(2.0, 3.0, 1.0) != 7.0) << 17;
    bad |= (__dsqrt_rn(4.0) != 2.0 || __ldcg(&A[0]) != A[0]) << 18;
    int count = __syncthreads_count(threadIdx.x < 3);
    int all = __syncthreads_and(1), any = __syncthreads_or(threadIdx.x == 5 && threadIdx.y == 0);
    bad |= (count != 3 * (int)blockDim.y || all != 1 || any != 1) << 19;
    __syncthreads();
    bad |= (counter != blockDim.x * blockDim.y) << 20;
    bad |= (__fdiv_ru(1.0f, 3.0f) != 0.333333343f || __fdiv_rd(1.0f, 3.0f) != 0.333333313f) << 21;
    float nan = __int_as_float(0x7fc00000 + K - K);
    bad |= (__saturatef(nan) != 0.0f || __float2int_rn(nan) != 0) << 22;
    bad |= (__float2int_rn(3.0e9f + (float)(K - K)) != 2147483647) << 23;
    bad |= (max(nan, 1.0f) != 1.0f || min(2.0f, nan) != 2.0f || max((double)nan, 1.0) != 1.0) << 24;
    bad |= (min(nan, 3.0) != 3.0 || max(-1, 0u) != 4294967295u) << 25;
    double third_d = 1.0 / (3.0 + (double)(K - K));  // double's rounding goes through binary128
    bad |= (__ddiv_ru(1.0, 3.0 + (double)(K - K)) != 0x1.5555555555556p-2) << 26;
    bad |= (__dmul_rd(third_d, 3.0) != 0x1.fffffffffffffp-1 || third_d * 3.0 != 1.0) << 27;
    bad |= (pad[(threadIdx.x + 1) % 4] != 0.0f) << 28;  // another thread's: NVVM keeps pad
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += __ldcs(&A[row * K + k]) * __ldca(&B[k * N + col]);
        if (bad) printf("bad bits %x\\n", bad);
        __stcg(&C[row * N + col], acc + (float)bad);
    }
}
"""


def test_cuda_s_intrinsics_compute_what_the_gpu_computes(small_ex1: Exercise) -> None:
    # the ninth walk: __mul24, __syncthreads_count, __fadd_rd, __ldcg, atomicInc... did not
    # build, and `__shared__ __align__(16)` did not either; each sets a bit of `bad` where its
    # result is not CUDA's
    report = _grade(small_ex1, _INTRINSICS)
    assert report.passed and not report.needs_gpu, _messages(report)


def test_a_cache_hinted_load_of_a_shared_address_fails_as_on_a_gpu(small_ex1: Exercise) -> None:
    # ld.global.cg of a shared address: cudaErrorInvalidAddressSpace on an H100, where the CPU
    # read the array (our own _INTRINSICS did it, and passed on the CPU only)
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float tile[16];
    tile[threadIdx.x % 16] = A[0];
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) C[0] = __ldg(&tile[(threadIdx.y + 1) % 16]);
}
"""
    report = _grade(small_ex1, body)
    runtime = report.checks[1]
    assert runtime.status == "failed" and not report.needs_gpu
    assert "__ldg() of an address in the block's shared memory" in runtime.message, runtime.message


def test_a_cuda_built_in_the_runtime_lacks_is_refused_from_the_source(small_ex1: Exercise) -> None:
    # found in the source, on every backend: a GPU grading knows a CPU one left it the points
    body = _INTRINSICS.replace("__fma_rn(2.0, 3.0, 1.0)", "__fma_rz(2.0, 3.0, 1.0)")
    report = _grade(small_ex1, body)
    assert report.checks[0].status == "passed" and report.cpu_refuses
    runtime = report.checks[1]
    assert runtime.needs_a_gpu and "__fma_rz() is not provided by the CPU backend" in (
        runtime.message
    )


def test_a_shared_array_in_a_template_is_refused_at_its_line_not_called_a_race(
    small_ex1: Exercise,
) -> None:
    # g++ puts a template's static variables out of the per-block shared memory: every block
    # would share one copy, and a right kernel would be told its threads race
    body = """
template <int T> __device__ void tile(const float *A, float *C) {
    __shared__ float staged[T][T];
    staged[threadIdx.y][threadIdx.x] = A[0];
    __syncthreads();
    C[0] = staged[0][0];
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    tile<16>(A, C);
}
"""
    report = _grade(small_ex1, body)
    runtime = report.checks[1]
    assert runtime.needs_a_gpu and "race" not in runtime.message
    assert "kernel.cu:4: a __shared__ variable declared in a template (or a lambda" in (
        runtime.message
    )


_INLINE_HELPER = """
__device__ inline float zero() {
    __shared__ float s[1];
    if (threadIdx.x == 0 && threadIdx.y == 0) s[0] = 0.0f * blockIdx.x;  // NVVM folds a constant
    __syncthreads();
    return s[0];
}
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    %s
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    float z = zero();
    if (row < M && col < N) {
        float acc = z;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
"""


def test_shared_in_an_inline_helper_runs_and_beside_one_in_the_kernel_is_left_to_a_gpu(
    small_ex1: Exercise,
) -> None:
    # the eighth walk: g++'s "section type conflict" was an error, a final 0 in a CPU batch
    alone = _grade(small_ex1, _INLINE_HELPER % "")
    assert alone.passed and not alone.needs_gpu, _messages(alone)
    both = _grade(small_ex1, _INLINE_HELPER % "__shared__ float t[2]; t[0] = 0.0f;")
    runtime = both.checks[1]
    assert runtime.needs_a_gpu and both.cpu_refuses
    assert "kernel.cu:4: __shared__ variables both in an inline function" in runtime.message


def test_out_of_bounds_reads_name_the_buffer_and_the_line(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k <= K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
"""
    report = _grade(small_ex1, body)
    message = report.checks[1].message
    assert "kernel.cu:8: a read of 4 bytes" in message
    assert "past the end of" in message


def test_an_overflowing_shared_array_is_reported(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float tile[16][16];
    tile[threadIdx.y][threadIdx.x + 1] = A[0];
    __syncthreads();
    C[0] = tile[0][1];  // read: NVVM removes an array never read
}
"""
    report = _grade(small_ex1, body)
    assert "kernel.cu:5: index 16 out of bounds for type 'float [16]'" in report.checks[1].message


def test_a_misaligned_vector_load_is_reported(small_ex1: Exercise) -> None:
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    const float4 v = *reinterpret_cast<const float4 *>(A + 1);
    if (threadIdx.x == 0 && blockIdx.x == 0 && v.x == 12345.0f) C[0] = 0.0f;
}
"""
    report = _grade(small_ex1, body)
    message = report.checks[2].message  # 17x33x65: A is large enough for a 16-byte load
    assert "kernel.cu:4:" in message and "misaligned" in message


def test_shared_memory_is_poisoned_between_blocks(small_ex1: Exercise) -> None:
    # Reads the tile before any thread of this block wrote it: NaN from the poison, every block.
    body = TILED.replace(
        "        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;\n", "", 1
    )
    report = _grade(small_ex1, body)
    assert not report.passed
    assert "NaN" in _messages(report)


def test_a_kernel_that_loops_forever_is_stopped(small_ex1: Exercise, tmp_path: Path) -> None:
    body = TILED.replace("for (int step = 0; step < steps; ++step)", "for (int step = 0; ; )", 1)
    report = _grade(small_ex1, body)
    assert report.checks[1].status == "failed"
    assert "time limit" in report.checks[1].message


needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"
)


@needs_sandbox
def test_the_build_cannot_read_host_files_through_the_assembler(
    small_ex1: Exercise, tmp_path: Path
) -> None:
    # Found by probing: `asm` spelled through a macro escaped the scan for inline asm, and the
    # assembler's .incbin copied any file into the program, which printed it in its verdict.
    # Now the scan also reads the preprocessed file (and the build runs in the sandbox:
    # tests/sandbox/test_sandbox.py).
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("MARKER-not-for-students\n")
    probe = f"""
#define GLUE(a, b) a##b
#ifndef __CUDACC_RTC__
GLUE(as, m)(".section .rodata\\n.global leaked\\nleaked: .incbin \\"{host_file}\\"\\n.byte 0");
extern "C" const char leaked[];
#endif
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {{
#ifndef __CUDACC_RTC__
    std::fputs(leaked, stderr);
    std::exit(3);
#endif
}}
"""
    report = grade(small_ex1, KernelSource(probe, "kernel.cu"), seed=1, backend="cpu")
    # token pasting is now refused before any compiler (grader/source.py): the scan of the
    # preprocessed file stays behind it, and the build's sandbox behind that
    assert report.checks[0].status == "failed" and "token pasting" in report.checks[0].message
    assert all("MARKER" not in check.message for check in report.checks)


def test_inline_asm_spelled_through_a_macro_is_refused(small_ex1: Exercise) -> None:
    pasted = """
#define GLUE(a, b) a##b
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    GLUE(as, m) volatile("membar.gl;");
}
"""
    report = grade(small_ex1, KernelSource(pasted, "kernel.cu"), seed=1, backend="cpu")
    assert report.checks[0].status == "failed"  # pasting is refused before any compiler
    assert report.checks[0].message == (
        "kernel.cu:2: token pasting (##) is not allowed in a kernel: a pasted name escapes the "
        "grader's checks"
    ), report.checks[0].message
    aliased = pasted.replace("#define GLUE(a, b) a##b", "#define ASM asm").replace(
        "GLUE(as, m)", "ASM"
    )
    report = grade(small_ex1, KernelSource(aliased, "kernel.cu"), seed=1, backend="cpu")
    assert report.checks[0].status == "passed"  # NVRTC compiles it
    assert report.checks[1].needs_a_gpu
    assert "inline PTX (asm) is not supported by the CPU backend" in report.checks[1].message


def test_a_kernel_whose_device_variables_fill_the_cpu_s_memory_is_left_to_a_gpu(
    small_ex1: Exercise,
) -> None:
    # (not through malloc, which is left to a GPU, nor through its stack, past 128 KB: the
    # `__device__` variables are a kernel's only memory of any size here, and a GPU has 80 GB)
    hog = """
__device__ char hog[1536ul << 20];  // 1.5 GB
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    for (unsigned long i = 0; i < sizeof hog; i += 4096) hog[i] = 1;
    for (int i = 0; i < M * N; ++i) C[i] = 0.0f;
}
"""
    report = grade(small_ex1, KernelSource(hog, "kernel.cu"), seed=1, backend="cpu")
    first = report.checks[1]
    assert first.status == "skipped" and report.needs_gpu
    assert "1,610,612,736 bytes of __device__ variables, over the 1 GB" in first.message


def test_fast_division_gives_what_the_gpu_gives_for_huge_divisors(small_ex1: Exercise) -> None:
    # __fdividef(x, y) is 0 on a GPU for 2^126 < |y| < 2^128 (CUDA's programming guide): a
    # kernel that scales by __fdividef(big, big) writes zeros there, and must fail here too
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    const float big = 1e38f + K;
    C[row * N + col] = s * __fdividef(big, big);
}
"""
    report = _grade(small_ex1, body)
    case = report.checks[1]
    assert case.status == "failed" and "got 0," in case.message, case.message


def test_a_shared_variable_whose_constructor_nvrtc_leaves_out_is_left_to_a_gpu(
    small_ex1: Exercise,
) -> None:
    # g++ ran the constructor (and the destructor at exit); NVRTC does not: a kernel that
    # computed only when it had run passed on the CPU only (red team, session 23)
    body = """
__device__ int constructed = 0;
struct Mark { int v; __device__ Mark() : v(0) { constructed = 1; } };
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ Mark mark;
    if (constructed) C[0] = 0.0f;
}
"""
    report = _grade(small_ex1, body)
    runtime = report.checks[1]
    assert runtime.needs_a_gpu
    assert "kernel.cu:6: a __shared__ variable with a constructor, which NVRTC leaves out" in (
        runtime.message
    )

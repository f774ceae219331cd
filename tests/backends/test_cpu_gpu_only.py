"""What a GPU does that the CPU build would not, and the CPU backend now does as a GPU does or
leaves to a GPU (red team, round 8: each file in tests/data/gpu_tells/round8/ passed 100/100 on
the CPU backend, and would fail on a GPU)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader.backends.compiler import _gpu_only
from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_equivalence import _trap_line
from tests.backends.programs import build_program
from tests.backends.sessions import assert_writes_nothing_as_on_a_gpu, graded_as_ex1
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

ROUND_8 = ROOT / "tests/data/gpu_tells/round8"
ROUND_9 = ROOT / "tests/data/gpu_tells/round9"
ROUND_10 = ROOT / "tests/data/gpu_tells/round10"
ROUND_11 = ROOT / "tests/data/gpu_tells/round11"
ROUND_12 = ROOT / "tests/data/gpu_tells/round12"
TRAPS = ROOT / "tests/data/gpu_tells/nvvm_trap"
CASES_UP_TO_THIN_1000 = [
    "tiny 1x1x1", "K = 1", "odd 17x33x65", "square 64", "thin 31x1024x33", "thin 1000x1x999"
]  # fmt: skip
SYMBOL = "_Z12matmul_tiledPKfS0_Pfiii"


def assert_left_to_a_gpu(course: Path, file: Path, why: str) -> None:
    """`file`, graded as ex1 of `course`: every correctness case needs a GPU, and says `why`."""
    report = graded_as_ex1(course, file.read_text(), "kernel.cu")
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert report.needs_gpu and correctness  # the correctness points wait for a GPU
    for check in correctness:
        assert check.status == "skipped" and why in check.message, check


def test_nvrtc_s_warnings_of_what_only_a_gpu_does_are_read_with_their_lines() -> None:
    log = (
        "warning: kernel.cu(10): Warning: Cannot store to pointer that points to constant memory"
        " space\n"
        "kernel.cu(6): warning #20208-D: 'long double' is treated as 'double' in device code\n"
        f"ptxas warning : Stack size for entry function '{SYMBOL}' cannot be statically "
        "determined\n"
    )
    found = _gpu_only(log, SYMBOL)
    assert found[0].startswith("10: a store to __constant__ memory") and "trap" in found[0]
    assert found[1].startswith("6: long double, which NVRTC computes as double")
    assert found[2].startswith(" recursion (or a call through a pointer)")
    # another kernel of the file recursing is not this one's concern
    assert _gpu_only(log.replace(SYMBOL, "_Z5otherv"), SYMBOL)[2:] == ()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("constant_store.cu", "kernel.cu:10: a store to __constant__ memory"),
        ("long_double_bits.cu", "kernel.cu:6: long double, which NVRTC computes as double"),
        ("recursion_stack.cu", "kernel.cu: recursion (or a call through a pointer)"),
    ],
)
def test_a_kernel_nvrtc_warns_runs_otherwise_on_a_gpu_is_left_to_a_gpu(
    small_course: Path, name: str, why: str
) -> None:
    assert_left_to_a_gpu(small_course, ROUND_8 / name, why)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "const_cast_griddim.cu",  # tests for the store, computes only where it stays: GPU 10/100
        "const_cast_right_kernel_fails.cu",  # a right kernel: it changed the blocks' indices
        "const_cast_warpsize_segfault.cu",  # a right kernel: it faulted on the CPU alone
    ],
)
def test_a_kernel_that_writes_a_built_in_through_a_cast_is_left_to_a_gpu(
    small_course: Path, name: str
) -> None:
    # a GPU ignores the store; here the built-ins are read-only memory, the store faults, and
    # the program says why, in the fast build and the sanitizers' alike (the small course's
    # cases take both)
    assert_left_to_a_gpu(small_course, ROUND_8 / name, "writes one of CUDA's built-in variables")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "why"),
    [
        # a store through a helper, which NVRTC drops without its warning (a GPU reads 0 after)
        ("constant_store_via_helper.cu", "writes a __constant__ variable"),
        ("constant_store_helper_honest.cu", "writes a __constant__ variable"),
        # another recursive kernel of the file, which ptxas named first
        ("recursion_other_kernel_first.cu", "recursion (or a call through a pointer)"),
    ],
)
def test_round_9_s_ways_around_round_8_are_left_to_a_gpu(
    small_course: Path, name: str, why: str
) -> None:
    assert_left_to_a_gpu(small_course, ROUND_9 / name, why)


@pytest.mark.slow
def test_printf_returns_cuda_s_count_so_a_kernel_that_tests_glibc_s_writes_nothing(
    small_course: Path,
) -> None:
    # computes only where printf("%d", 10) gives 2 (glibc's characters): CUDA gives 1
    text = (ROUND_9 / "printf_return.cu").read_text()
    assert_writes_nothing_as_on_a_gpu(graded_as_ex1(small_course, text, "kernel.cu"))


@pytest.mark.slow
def test_a_kernel_that_reads_constants_and_counts_printf_s_arguments_passes(
    small_course: Path,
) -> None:
    # __constant__ memory is read-only, not unreadable; printf returns its arguments' count, as
    # CUDA's does (two here: a `*` precision and a value), whatever it would have printed
    text = """
__constant__ float one[2] = {1.0f, 0.0f};
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (printf("%.*f%%\\n", 2, 1.0) != 2) return;
    if (row < M && col < N) {
        float acc = one[1];
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc * one[0];
    }
}
"""
    report = graded_as_ex1(small_course, text, "kernel.cu")
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert correctness and all(c.status == "passed" for c in correctness), correctness


@pytest.mark.slow
@pytest.mark.parametrize(
    ("file", "why"),
    [
        # 16 MB at once, where a GPU's heap is 8 MB (round 8)
        (ROUND_8 / "malloc_heap_size.cu", "calls malloc()"),
        # a size rewritten before its block, to get past a cap (round 9)
        (ROUND_9 / "malloc_header_forged_free.cu", "calls malloc()"),
        # 1 MB a thread, held by one thread at a time here, by a warp at once on a GPU; the
        # honest form, a row copied into a block, faults on a GPU; the whole heap a block (10)
        (ROUND_10 / "malloc_per_thread_concurrency.cu", "calls malloc()"),
        (ROUND_10 / "malloc_row_copy_honest.cu", "calls malloc()"),
        (ROUND_10 / "malloc_whole_heap.cu", "calls malloc()"),
        # new takes the same heap (NVRTC's PTX calls malloc), though g++ may elide it
        (ROUND_10 / "new_per_thread.cu", "calls malloc() or new"),
        # what CUDA's printf returns past 32 arguments is not documented (round 10)
        (ROUND_10 / "printf_33_arguments.cu", "printf() with more than 32 arguments"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_what_a_gpu_s_heap_or_printf_does_past_the_cpu_s_reach_is_left_to_a_gpu(
    small_course: Path, file: Path, why: str
) -> None:
    assert_left_to_a_gpu(small_course, file, why)


@pytest.mark.parametrize(
    ("file", "passing"),
    [
        # writes nothing once a small shape has set its flag: the large cases come after the small
        (ROUND_11 / "device_state_split_checked_fast.cu", CASES_UP_TO_THIN_1000),
        # the same, with "0 bytes gmem" in a comment or a #warning, which NVRTC's log quotes
        # before ptxas's own figure: it was read as the file's, and the cheat passed (round 12)
        (ROUND_12 / "comment_forges_gmem.cu", CASES_UP_TO_THIN_1000),
        (ROUND_12 / "warning_forges_gmem.cu", CASES_UP_TO_THIN_1000),
        # the count of K's tiles kept from the first launch (K = 1): only K <= 16 comes out right
        (
            ROUND_11 / "device_state_cached_steps_honest.cu",
            ["tiny 1x1x1", "K = 1", "thin 1000x1x999", "wide 1100x7x1030"],
        ),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_a_kernel_s_device_variables_are_one_copy_for_every_shape_as_on_a_gpu(
    file: Path, passing: list[str]
) -> None:
    # the small shapes ran in the checked program and the large ones in the fast one, whose copy
    # of the variables started afresh: 100/100 and 73/100 on the CPU (red team, round 11)
    report = graded_as_ex1(ROOT, file.read_text())
    correctness = [c for c in report.checks if c.kind == "correctness"]
    passed = [c.name.removeprefix("correctness ") for c in correctness if c.status == "passed"]
    assert passed == passing
    assert all(c.status == "failed" for c in correctness if c.status != "passed")
    assert not report.needs_gpu


def test_a_thread_stack_past_the_cpu_s_fibers_is_left_to_a_gpu(small_course: Path) -> None:
    # 264,000 bytes a thread: ptxas sizes it, a GPU runs it; the CPU's fibers overflowed, and a
    # right kernel failed (red team, round 11)
    assert_left_to_a_gpu(
        small_course,
        ROUND_11 / "local_array_264k_right_kernel.cu",
        "264,000 bytes of stack a thread",
    )


@pytest.mark.parametrize(
    ("file", "why"),
    [
        # a comment naming the kernel's "Compiling entry function" line hid ptxas's 264,000 bytes
        (ROUND_12 / "comment_forges_stack.cu", "264,000 bytes of stack a thread"),
        # NVVM removes the array (ptxas: 0 bytes), g++ -O1 keeps 280 KB: a right kernel failed
        (ROUND_12 / "stack_nvvm_folds_gpp_keeps.cu", "g++'s checked (-O1, sanitizers) build"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_a_stack_the_cpu_s_threads_cannot_hold_is_left_to_a_gpu_whoever_sizes_it(
    small_course: Path, file: Path, why: str
) -> None:
    assert_left_to_a_gpu(small_course, file, why)


def test_an_over_aligned_new_is_left_to_a_gpu_as_the_device_heap_it_takes(
    small_course: Path,
) -> None:
    # its PTX calls __cuda_syscall_aligned_malloc: it was told "no GPU can load such a kernel"
    assert_left_to_a_gpu(small_course, ROUND_11 / "aligned_new_syscall.cu", "calls malloc() or new")


def test_the_kernel_s_aligned_new_is_the_runtime_s_refusal(tmp_path: Path) -> None:
    # behind the PTX check: g++'s operator new(size_t, align_val_t) was the C++ library's heap
    text = (
        "struct alignas(64) Slot { float acc; float pad[15]; };\n"
        "__device__ Slot *kept;\n"
        "__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K,"
        " int N) { kept = new Slot; C[0] = 1.0f; }\n"
    )
    program = build_program(tmp_path, text, SYMBOL, checked=False)
    fields = [1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 10_000, 1, 1, 1]
    request = " ".join(map(str, fields)).encode() + b"\n" + bytes(12)
    done = subprocess.run([str(program)], input=request, capture_output=True, check=False)
    assert done.returncode == 71, done.stderr.decode()[-2000:]
    assert b"GRADER-CPU-UNSUPPORTED: the kernel calls malloc() or new" in done.stderr


def test_code_nvvm_compiles_to_a_trap_is_left_to_a_gpu_with_its_line(small_course: Path) -> None:
    # an atomic on a local variable: a trap on a GPU, a plain add in g++'s build (it passed)
    file = TRAPS / "atomic_on_local.cu"
    assert_left_to_a_gpu(small_course, file, "kernel.cu:15: NVRTC compiled this to a trap")


@pytest.mark.parametrize(
    ("ptx", "line"),
    [
        # NVVM's own block for the trap, at line 0: the line of the branch there
        (
            [".loc 1 4 5", "@%p3 bra $L__BB0_3;", ".loc 1 6 5", "@%p4 bra $L__BB0_4;",
             ".loc 1 7 5", "ret;", "$L__BB0_4:", ".loc 1 0 1", "trap;"],
            6,
        ),
        ([".loc 1 9 3", "@%p1 trap;"], 9),  # under a predicate, on its own line
        ([".loc 1 0 1", "trap;"], None),  # no line to name
    ],
)  # fmt: skip
def test_a_trap_is_placed_on_the_line_that_leads_to_it(ptx: list[str], line: int | None) -> None:
    assert _trap_line(ptx) == line


ROUND_23 = ROOT / "tests/data/gpu_tells/round23"
FAST_ONLY = """
__device__ int launches;  // a __device__ variable: every launch runs in the fast program
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    %s
    C[row * N + col] = acc;
}
"""


@pytest.mark.parametrize(
    ("body", "why"),
    [
        # PTX clamps the count (all ones less one: a right mask); x86 masks it to 5 bits
        ("acc += (float)((1u << (blockDim.x * 2u)) - 1u) * 0.0f;", "shift exponent 32 is too"),
        # PTX saturates (2147483647); x86 gives INT_MIN
        ("acc += (float)(int)(3e9f + A[0] * 0.0f) * 0.0f;", "3e+09 is outside the range"),
        # a value on a GPU; SIGFPE on x86
        ("acc += (float)(col / ((int)gridDim.z - 1)) * 0.0f;", "division by zero"),
    ],
    ids=["shift by 32", "float to int", "division by zero"],
)
def test_what_a_gpu_computes_and_x86_does_not_is_left_to_a_gpu_from_the_fast_build_too(
    small_course: Path, body: str, why: str
) -> None:
    # the fast program's checks have the runtime's own handlers (it links no sanitizer runtime)
    report = graded_as_ex1(small_course, FAST_ONLY % body, "kernel.cu")
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert correctness and all(c.needs_a_gpu for c in correctness), correctness
    assert why in correctness[0].message and "kernel.cu:10:" in correctness[0].message


@pytest.mark.parametrize(
    ("file", "why"),
    [
        # a shift by 32 in a lane mask: a right kernel on a GPU, UBSan failed it here (round 9)
        (ROUND_9 / "shift_by_32_right_kernel_fails.cu", "shift exponent 32 is too large"),
        # 3e9f as an int: 2147483647 on a GPU, INT_MIN here: 100/100 for nothing (round 8)
        (ROUND_8 / "float_to_int_saturation.cu", "is outside the range of representable values"),
        # col / 0, times 0.0f: a right answer on a GPU, UBSan (or SIGFPE) failed it here
        (ROUND_23 / "intdiv_zero.cu", "division by zero"),
        # NVVM merged two loads at A + 1 into one 8-byte load, which faults on a GPU (19/100);
        # g++ loaded two floats (100/100 with both builds and on Gradescope; round 23)
        (ROUND_23 / "misaligned_assume.cu", "an assumption (__builtin_assume"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_what_x86_computes_otherwise_than_a_gpu_is_left_to_a_gpu(
    small_course: Path, file: Path, why: str
) -> None:
    assert_left_to_a_gpu(small_course, file, why)


def test_a_misaligned_vector_load_fails_in_the_fast_build_as_on_a_gpu(small_course: Path) -> None:
    # float4 reads of A's rows, K % 4 != 0: a GPU faults; the fast build read them (x86), and the
    # shapes it alone runs passed (91/100 where a GPU gives at most 73: red team, round 23). A
    # __device__ variable runs every case in the fast program
    text = "__device__ int launches;\n" + (ROUND_23 / "float4_rows_oddK.cu").read_text()
    report = graded_as_ex1(small_course, text)
    failed = {c.name.removeprefix("correctness "): c.message for c in report.checks}
    for case in ("odd 17x33x65", "long K 33x2049x47", "wide 1100x7x1030"):  # K % 4 != 0
        assert "misaligned address" in failed[case] and "float4" in failed[case]
    assert report.score == 73


ROUND_24 = ROOT / "tests/data/gpu_tells/round24"


def test_a_b_and_c_are_aligned_in_both_builds_as_on_a_gpu(small_course: Path) -> None:
    # the checked build's exact copies came from malloc (16 bytes): a right kernel reading B's
    # rows through a 32-byte-aligned type could fail its alignment check (red team, round 24)
    report = graded_as_ex1(small_course, (ROUND_24 / "aligned_as_on_a_gpu.cu").read_text())
    assert report.passed and not report.needs_gpu, [(c.name, c.message) for c in report.checks]


ROUND_25 = ROOT / "tests/data/gpu_tells/round25"


def test_a_result_that_depends_on_the_order_of_evaluation_is_left_to_a_gpu(
    small_course: Path,
) -> None:
    # g++ evaluates a call's arguments right to left, NVRTC left to right (red team, round 25):
    # where g++ sees a variable changed in one argument and used in another, it is left to a GPU
    why = "kernel.cu:17: a result that depends on the order its parts are evaluated in"
    assert_left_to_a_gpu(small_course, ROUND_25 / "eval_order_accidental.cu", why)

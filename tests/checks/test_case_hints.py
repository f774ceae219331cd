"""Messages that name the real cause: NaN told apart by where it comes from (C, shared memory,
outside the inputs), hints across the graded shapes and tile sizes, and the lines of the source
where the grader finds what a hint points at."""

from __future__ import annotations

import numpy as np
import pytest

from grader.checks.case_hints import cross_case_hints, ignored_tile_size_hint
from grader.results import CheckResult
from grader.source import KernelSource, read_source
from grader.spec import CaseSpec, Shape, load_spec
from tests.checks.test_correctness import F32, SPEC, _check, _matrices, correct
from tests.conftest import ROOT

GPU_NAN = np.array([0x7FFFFFFF], dtype=np.uint32).view(np.float32)[0]
"""The canonical NaN a GPU's arithmetic returns, whatever NaN went in."""


def _gpu_add(c: F32, x: F32) -> F32:
    """`c + x` as a GPU computes it: NaN in, canonical NaN out (x86 would keep the payload)."""
    with np.errstate(invalid="ignore"):
        out = (c.astype(np.float64) + x).astype(np.float32)
    out[np.isnan(out)] = GPU_NAN
    return out


def test_plus_equals_on_a_gpu_is_told_by_launching_with_zeros_in_c() -> None:
    # a GPU's NaN says nothing about where it came from: C zeroed before a launch does
    def plus_equals(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        am, bm = _matrices(a, b, o, m, k, n)
        c[o : o + m * n] = _gpu_add(c[o : o + m * n], (am @ bm).ravel().astype(np.float32))

    result = _check(plus_equals, "20x30x40")
    assert "plus_equals" in result.symptoms
    assert result.message.splitlines()[1].startswith("Every element is NaN: C is read before")
    assert "C[...] += ..." in result.message and "store it once" in result.message


def test_plus_equals_on_the_cpu_is_told_by_the_quietened_poison() -> None:
    launches: list[int] = []

    def plus_equals(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        launches.append(i)
        am, bm = _matrices(a, b, o, m, k, n)
        with np.errstate(invalid="ignore"):  # x86 quietens the signalling NaN, payload kept
            c[o : o + m * n] += (am @ bm).ravel()

    result = _check(plus_equals, "20x30x40")
    assert "plus_equals" in result.symptoms and "+=" in result.message
    # the launch, the race probe and the zero-guard probe: the bits told the rest, not a 4th
    assert len(launches) == 3


def test_nan_everywhere_that_zeros_in_c_do_not_remove_is_not_blamed_on_plus_equals() -> None:
    def divides_by_zero(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        c[o : o + m * n] = GPU_NAN

    result = _check(divides_by_zero, "20x30x40")
    assert result.symptoms == ("nan_everywhere",)
    assert "+=" not in result.message and "read before it was written" in result.message


def test_nan_from_unwritten_shared_memory_on_the_cpu_names_shared_memory_not_c() -> None:
    # the CPU backend's 0xFF fill of shared memory, in the last columns only (a partial tile)
    def unstaged(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        out = c[o : o + m * n].reshape(m, n)
        out[:, 32:] = np.array([0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0]

    result = _check(unstaged, "20x30x40")
    assert result.symptoms == ("uninitialised_shared",)
    assert "NaN/Inf in rows 0..19, columns 32..39: they come from __shared__ memory" in (
        result.message
    )
    assert "+=" not in result.message


def test_a_nan_probe_that_fails_leaves_the_verdict_unchanged() -> None:
    def overread_then_crash(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        from grader.backends.base import KernelRuntimeError

        if i > 1:
            raise KernelRuntimeError("illegal address", context_lost=False)
        correct(a, b, c, o, m, k, n, i)
        c[o] = GPU_NAN

    result = _check(overread_then_crash, "20x30x40")
    assert result.status == "failed" and result.symptoms == ("nan",)


# Hints across the graded shapes, on ex1's own cases


def _verdicts(passing: set[str], spec_cases: list[CaseSpec]) -> list[tuple[Shape, CheckResult]]:
    out = []
    for case in spec_cases:
        status = "passed" if case.shape in passing else "failed"
        symptoms = () if status == "passed" else ("everywhere",)
        out.append((case.dims, CheckResult(case.label, "correctness", status, 0, 1, "", symptoms)))  # type: ignore[arg-type]
    return out


EX1_CASES = list(SPEC.correctness.cases)


def test_a_square_only_kernel_is_told_square_shapes_on_ex1s_cases() -> None:
    # the ex1 stub: right on both squares over a tile; 1x1x1 fails on its bounds
    hints = cross_case_hints(_verdicts({"64x64x64", "1024x1024x1024"}, EX1_CASES), 16, SPEC.launch)
    assert hints == [
        "Correct only for square shapes (64x64x64, 1024x1024x1024): somewhere M, K or N is used "
        "where another belongs (A's row stride is K; B's and C's is N; the loop runs over K)."
    ]


def test_a_kernel_hard_coded_to_1024_is_told_hard_coded_sizes_with_the_line() -> None:
    source = read_source(ROOT / "solutions/ex1-non-square/wrong/hardcoded_sizes.cu")
    verdicts = _verdicts({"1024x1024x1024"}, EX1_CASES)
    hints = cross_case_hints(verdicts, 16, SPEC.launch, source)
    assert hints[0].startswith("Correct only at 1024x1024x1024: are sizes hard-coded")
    assert "hardcoded_sizes.cu:8 (#define SIZE 1024)" in hints[0]


def test_every_new_shape_is_graded_in_every_exercise() -> None:
    for directory in ("ex1-non-square", "ex2-tile-sweep", "ex3-profiling", "ex4-register-tiling"):
        spec = load_spec(ROOT / "exercises" / directory / "spec.yaml")
        shapes = [case.dims for case in spec.correctness.cases]
        tiles = {8, 16, 32}
        assert any(s.k > 1024 for s in shapes), directory
        assert any(s.m > 1024 and s.n > 1024 for s in shapes), directory
        over = [s for s in shapes if s.k > max(s.m, s.n)]
        under = [s for s in shapes if s.k < min(s.m, s.n)]
        assert over and under, directory
        # a small square beside a large one tells a square-only kernel from hard-coded sizes
        squares = [s for s in shapes if s.m == s.k == s.n and s.m > 32]
        assert len(squares) >= 2 and min(s.m for s in squares) <= 64, directory
        for s in (*over, *under):
            if s.k > 1024 or s.m > 1024:
                assert all(d % t for d in (s.m, s.k, s.n) for t in tiles), (directory, s)
        # smallest first (within a quarter), so a kernel that hangs has shown the most first
        work = [s.m * s.k * s.n for s in shapes]
        assert all(w <= 1.25 * min(work[i:]) for i, w in enumerate(work)), directory


def test_in_a_sweep_a_shape_passing_in_one_build_and_failing_in_another_makes_no_shape_hint() -> (
    None
):
    passing_32 = _verdicts({c.shape for c in EX1_CASES}, EX1_CASES)
    failing = _verdicts(set(), EX1_CASES)
    assert cross_case_hints([*failing, *passing_32], 16, SPEC.launch) == []


# Which tile sizes fail


def _results(*statuses: str, message: str = "") -> list[CheckResult]:
    return [CheckResult(f"c{i}", "correctness", s, 0, 1, message) for i, s in enumerate(statuses)]  # type: ignore[arg-type]


def test_a_kernel_ignoring_tile_size_is_told_the_line_of_its_own_size() -> None:
    source = read_source(ROOT / "solutions/ex2-tile-sweep/wrong/hardcoded_tile_32.cu")
    hint = ignored_tile_size_hint(
        {
            "TILE_SIZE=8": _results("failed", "failed"),
            "TILE_SIZE=16": _results("failed", "failed"),
            "TILE_SIZE=32": _results("passed", "passed"),
        },
        source,
    )
    assert hint is not None
    assert hint.startswith("Passes at TILE_SIZE=32 only (fails at TILE_SIZE=8, TILE_SIZE=16)")
    assert "is the tile size hard-coded instead of TILE_SIZE?" in hint
    assert "hardcoded_tile_32.cu:3 (#define TILE 32)" in hint


def test_a_tile_size_that_does_not_compile_is_named() -> None:
    broken = "does not compile with TILE_SIZE=8: kernel.cu:5: error: static assertion failed"
    hint = ignored_tile_size_hint(
        {
            "TILE_SIZE=8": _results("failed", "failed", message=broken),
            "TILE_SIZE=16": _results("passed", "passed"),
            "TILE_SIZE=32": _results("passed", "passed"),
        }
    )
    assert hint is not None
    assert hint.startswith(
        "Fails at TILE_SIZE=8 (does not compile); passes at TILE_SIZE=16, TILE_SIZE=32"
    )
    assert "hard-coded" not in hint


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("C[row * N + col] += acc;", 3),
        ("out[(row) * N + col] -= s;", 3),
    ],
)
def test_the_line_that_reads_c_is_named_for_plus_equals(text: str, line: int) -> None:
    name = "out" if text.startswith("out") else "C"
    body = (
        f"__global__ void k(const float *A, const float *B, float *{name}, int M, int K, int N)\n"
        "{ int row = 0, col = 0; float acc = 1, s = 1;\n"
        f"  {text}  // {name}[0] += 1 in a comment does not count\n"
        "}\n"
    )
    source = KernelSource(body, "kernel.cu")
    failed = CheckResult("c", "correctness", "failed", 0, 1, "", ("plus_equals",))
    hints = cross_case_hints([(Shape(1, 1, 1), failed)], 16, SPEC.launch, source)
    assert len(hints) == 1
    assert f"C is read and written at: kernel.cu:{line} ({text})." in hints[0]


def test_the_shared_tiles_are_named_for_unwritten_shared_memory() -> None:
    source = read_source(ROOT / "solutions/ex1-non-square/kernel.cu")
    failed = CheckResult("c", "correctness", "failed", 0, 1, "", ("uninitialised_shared",))
    hints = cross_case_hints([(Shape(1, 1, 1), failed)], 16, SPEC.launch, source)
    assert len(hints) == 1 and "a_tile (kernel.cu:" in hints[0] and "b_tile (kernel.cu:" in hints[0]


def test_finite_garbage_read_past_the_grader_s_guard_is_not_called_a_race() -> None:
    # as on a GPU: past A's guard lies other memory, which differs from launch to launch
    from grader.checks.correctness import guard_length

    def far_read(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        far = o + m * k + guard_length(Shape(m, k, n)) + 5
        c[o] += a[far] if far < a.size else 1.0 + i  # past the buffer: garbage

    result = _check(far_read, "20x30x40", repeat=2)
    assert result.symptoms[0] == "varies_with_outside_reads", result.message
    assert "not from threads racing" in result.message and "threads race" not in result.message


def test_a_race_from_stores_that_miss_c_says_where_the_stores_land() -> None:
    def wraps(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        if i % 2:  # a thread of a column past N stores over element (1, 0) on some launches
            c[o + n] = 0.0
        c[o + m * n] = 0.0  # and one past the end of C

    result = _check(wraps, "20x30x40", repeat=2)
    assert result.symptoms[:2] == ("race", "outside_write")
    assert "col >= N is element (row + 1, col - N)" in result.message


def test_a_sweep_failing_only_in_some_builds_gets_no_hint_about_its_symptoms() -> None:
    # hard-coded tile 32: at TILE_SIZE=8 the tiles read unwritten elements; the build is to blame
    source = read_source(ROOT / "solutions/ex2-tile-sweep/wrong/hardcoded_tile_32.cu")
    shape = Shape(17, 33, 65)
    unwritten = CheckResult("c8", "correctness", "failed", 0, 1, "", ("uninitialised_shared",))
    passed = CheckResult("c32", "correctness", "passed", 1, 1, "")
    assert cross_case_hints([(shape, unwritten), (shape, passed)], 16, SPEC.launch, source) == []


def _case_results(
    verdicts: dict[str, tuple[str, tuple[str, ...]]],
) -> list[tuple[Shape, CheckResult]]:
    out = []
    for shape, (status, symptoms) in verdicts.items():
        dims = CaseSpec(shape=shape).dims
        out.append((dims, CheckResult(f"c {shape}", "correctness", status, 0, 1, "", symptoms)))  # type: ignore[arg-type]
    return out


LAUNCH = SPEC.launch
WRONG = ("failed", ("everywhere",))
OK = ("passed", ())


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (
            {"1x1x1": OK, "17x33x65": WRONG, "1024x1024x1024": OK, "512x768x1024": WRONG},
            "square shapes",
        ),
        (
            {"1x1x1": WRONG, "17x33x65": WRONG, "1024x1024x1024": OK, "512x768x1024": WRONG},
            "hard-coded",
        ),
        (
            {"48x1x80": WRONG, "17x33x65": WRONG, "31x1024x33": OK, "512x768x1024": OK},
            "partial tile along K",
        ),
        ({"17x32x65": WRONG, "32x32x32": OK, "512x768x1024": OK}, "multiple of the block's tile"),
        # the ex1 stub: square-only, and out of bounds on a square smaller than a tile
        (
            {"1x1x1": WRONG, "17x33x65": WRONG, "64x64x64": OK, "1024x1024x1024": OK},
            "square shapes (64x64x64, 1024x1024x1024)",
        ),
        # a loop of 1024 / TILE_SIZE steps, or K's tiles counted from max(M, N)
        (
            {"31x1024x33": OK, "33x2049x47": WRONG, "1100x7x1030": OK, "1024x1024x1024": OK},
            "K is over 1024 (33x2049x47)",
        ),
    ],
)
def test_cross_case_hints_name_the_pattern(
    verdicts: dict[str, tuple[str, tuple[str, ...]]], expected: str
) -> None:
    hints = cross_case_hints(_case_results(verdicts), 16, LAUNCH)
    assert len(hints) == 1 and expected in hints[0]


def test_no_hint_when_everything_passes_or_nans_explain_it() -> None:
    assert cross_case_hints(_case_results({"1x1x1": OK, "17x33x65": OK}), 16, LAUNCH) == []
    nan = ("failed", ("nan",))
    hints = cross_case_hints(
        _case_results({"48x1x80": nan, "17x33x65": nan, "512x768x1024": OK}), 16, LAUNCH
    )
    assert not any("partial tile along K" in h for h in hints)


def test_a_tiny_shape_passing_alone_is_not_called_hard_coded() -> None:
    verdicts = {"1x1x1": OK, "17x33x65": WRONG, "512x768x1024": WRONG, "1024x1024x1024": WRONG}
    assert not any("hard-coded" in h for h in cross_case_hints(_case_results(verdicts), 16, LAUNCH))


def test_a_sweep_passing_at_one_tile_size_only_is_told_the_tile_size_is_hard_coded() -> None:
    hint = ignored_tile_size_hint(
        {
            "TILE_SIZE=8": _results("passed", "failed"),
            "TILE_SIZE=16": _results("failed", "failed"),
            "TILE_SIZE=32": _results("passed", "passed"),
        }
    )
    assert hint is not None
    assert hint.startswith(
        "Passes at TILE_SIZE=32 only (fails at TILE_SIZE=8, TILE_SIZE=16): is the tile size "
        "hard-coded instead of TILE_SIZE?"
    )
    assert ignored_tile_size_hint({"": _results("passed", "failed")}) is None
    every = {"TILE_SIZE=8": _results("failed"), "TILE_SIZE=32": _results("failed")}
    assert ignored_tile_size_hint(every) is None


def test_dynamic_shared_memory_is_told_the_launch_gives_it_no_bytes() -> None:
    # the eleventh walk: every case failed with "store to null pointer", nothing on why
    body = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
    body = body.replace("__global__", "// dynamic tiles\n__global__", 1)
    body += "\n__device__ void helper() {\n    extern __shared__ float smem[];\n}\n"
    source = KernelSource(body, "dyn.cu")
    line = body.splitlines().index("    extern __shared__ float smem[];") + 1
    hints = cross_case_hints(_verdicts(set(), EX1_CASES), 16, SPEC.launch, source)
    assert hints == [
        f"`extern __shared__` (dyn.cu:{line}) is dynamic shared memory, sized at launch, and the "
        "exercise launches the kernel with none (0 bytes): give the tiles fixed sizes, e.g. "
        "`__shared__ float tile[TILE_SIZE][TILE_SIZE];`"
    ]
    passing = {str(case.shape) for case in EX1_CASES}
    assert cross_case_hints(_verdicts(passing, EX1_CASES), 16, SPEC.launch, source) == []

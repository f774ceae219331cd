"""The correctness check end to end on a NumPy stand-in for the device: each classic mistake,
simulated on the real guarded buffers, gets the verdict and the words a student needs."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from grader.backends.base import GemmLaunch, GemmOutput, Preparation
from grader.checks.correctness import CorrectnessCase, run_case
from grader.results import CheckResult, DeviceInfo
from grader.spec import CaseSpec, ExerciseSpec, load_spec
from tests.conftest import ROOT

F32 = npt.NDArray[np.float32]
# behaviour(a, b, c, offset, m, k, n, launch_number): writes into the flat buffers like a kernel
Behaviour = Callable[[F32, F32, F32, int, int, int, int, int], None]


class NumpyDevice:
    """Runs a Python 'kernel' on copies of the buffers, as a device would."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.counter = itertools.count()

    @property
    def device(self) -> DeviceInfo:
        return DeviceInfo("numpy", "numpy stand-in")

    @property
    def arch(self) -> str:
        return "sm_90"

    def prepare(self, source: object, compiled: object, defines: object) -> Preparation:
        return Preparation(0.0, True, "numpy stand-in")

    def launches(self, m: int, k: int, n: int, requested: int) -> int:
        return requested

    def extra_time_s(self, m: int, k: int, n: int, launches: int) -> float:
        return 0.0

    def take_warnings(self) -> list[str]:
        return []

    def recycle(self) -> bool:
        return False

    def run_gemm(self, launch: GemmLaunch) -> GemmOutput:
        a, b, c = launch.a.copy(), launch.b.copy(), launch.c.copy()
        self.behaviour(a, b, c, launch.offset, launch.m, launch.k, launch.n, next(self.counter))
        return GemmOutput(a, b, c)

    def reference(self, a: F32, b: F32) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return a64 @ b64, np.abs(a64) @ np.abs(b64)


def _matrices(a: F32, b: F32, o: int, m: int, k: int, n: int) -> tuple[F32, F32]:
    return a[o : o + m * k].reshape(m, k), b[o : o + k * n].reshape(k, n)


def correct(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, _: int) -> None:
    am, bm = _matrices(a, b, o, m, k, n)
    c[o : o + m * n] = (am @ bm).ravel()


SPEC: ExerciseSpec = load_spec(ROOT / "exercises/ex1-non-square/spec.yaml")


def _check(
    behaviour: Behaviour, shape: str, spec: ExerciseSpec = SPEC, repeat: int = 1
) -> CheckResult:
    case = CorrectnessCase(0, CaseSpec(shape=shape, repeat=repeat), 10.0)
    return run_case(NumpyDevice(behaviour), spec, case, seed=7)


def test_a_correct_kernel_passes_with_full_points() -> None:
    result = _check(correct, "17x33x65")
    assert (result.status, result.score) == ("passed", 10.0)
    assert "all 1105 elements within tolerance" in result.message


def test_wrong_last_rows_are_named_boundary_handling() -> None:
    def last_rows_zero(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        c[o + 16 * n : o + m * n] = 0.0

    result = _check(last_rows_zero, "17x33x65")
    assert result.status == "failed" and result.score == 0
    assert result.message.startswith("65 of 1105 elements wrong: 65 outside tolerance")
    assert "Only the last, partial tiles are wrong (rows 16..16" in result.message
    assert "(16, 0): got 0, expected" in result.message
    assert result.symptoms == ("boundary",)


def test_unwritten_elements_are_named_launch_geometry() -> None:
    def quarter(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        am, bm = _matrices(a, b, o, m, k, n)
        out = c[o : o + m * n].reshape(m, n)
        out[: m // 2, : n // 2] = (am @ bm)[: m // 2, : n // 2]

    result = _check(quarter, "64x32x64")
    assert result.status == "failed"
    assert "3072 never written" in result.message
    assert "(launch geometry)" in result.message
    assert "got never written" in result.message


def test_accumulating_into_c_is_recognised_by_the_nan_fill() -> None:
    def plus_equals(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        am, bm = _matrices(a, b, o, m, k, n)
        with np.errstate(
            invalid="ignore"
        ):  # arithmetic on the signalling NaN the grader fills C with
            c[o : o + m * n] += (am @ bm).ravel()

    result = _check(plus_equals, "20x30x40")
    assert "Every element is NaN" in result.message and "+=" in result.message


def test_reads_outside_the_inputs_show_as_nan() -> None:
    def overread(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        c[o + (m - 1) * n : o + m * n] = a[o + m * k]  # a value from A's guard

    result = _check(overread, "20x30x40")
    assert "come from reads outside A or B" in result.message
    assert "nan" in result.symptoms


def test_writes_outside_c_are_reported_even_when_c_is_right() -> None:
    def overwrite(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        c[o + m * n : o + m * n + 5] = 0.0

    result = _check(overwrite, "20x30x40")
    assert result.status == "failed"
    assert result.message.startswith("all 800 elements of C are right, but:")
    assert "Wrote 5 value(s) outside C (0 before its start, 5 after its end)" in result.message


def test_writes_into_the_inputs_fail() -> None:
    def scribble(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        a[o] = 0.0

    result = _check(scribble, "20x30x40")
    assert result.status == "failed" and "Wrote into A or B" in result.message


def test_a_result_that_changes_between_launches_is_called_a_race() -> None:
    def racy(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, launch: int) -> None:
        correct(a, b, c, o, m, k, n, launch)
        c[o + launch % (m * n)] += 1.0

    result = _check(racy, "20x30x40", repeat=3)
    assert result.status == "failed"
    assert "threads race" in result.message and "__syncthreads()" in result.message
    assert result.symptoms[0] == "race"


def test_a_wrong_second_launch_fails_a_repeated_case() -> None:
    def first_only(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, launch: int) -> None:
        if launch == 0:
            correct(a, b, c, o, m, k, n, launch)

    result = _check(first_only, "20x30x40", repeat=2)
    assert result.status == "failed" and "(launch 2 of 2)" in result.message


def test_nan_everywhere_from_reads_outside_the_inputs_is_not_called_plus_equals() -> None:
    def overread_everywhere(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        am, bm = _matrices(a, b, o, m, k, n)
        c[o : o + m * n] = (am @ bm).ravel() * (1.0 + b[o + k * n])  # reads past B's end

    result = _check(overread_everywhere, "17x33x65")
    assert "come from reads outside A or B" in result.message
    assert "+=" not in result.message


def test_a_kernel_wrong_only_in_the_second_row_of_a_small_shape_is_not_boundary() -> None:
    def second_half_rows(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        c[o + (m // 2) * n : o + m * n] *= 2.0

    ex4 = load_spec(ROOT / "exercises/ex4-register-tiling/spec.yaml")
    result = _check(second_half_rows, "17x33x65", spec=ex4)
    assert "boundary" not in result.symptoms


def test_nan_from_shared_memory_read_before_it_was_written_is_not_called_plus_equals() -> None:
    # the CPU backend fills shared memory with 0xFF bytes; arithmetic on that NaN keeps its bits
    def unstaged(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        c[o : o + m * n] = np.full(m * n, 0xFFFFFFFF, dtype=np.uint32).view(np.float32)

    result = _check(unstaged, "20x30x40")
    assert "uninitialised_shared" in result.symptoms and "nan_everywhere" not in result.symptoms
    assert "__shared__ memory read before any thread" in result.message
    assert "+=" not in result.message


def _nan_with_payload(payload: int) -> np.float32:
    return np.array([0x7FC00000 | payload], dtype=np.uint32).view(np.float32)[0]


def test_launches_that_differ_because_of_reads_outside_the_inputs_are_not_called_a_race() -> None:
    # what it reads past A (NaN here) comes out differently from launch to launch, as NaN
    # payloads do where the order of the arithmetic varies; with zeros there, launches agree
    def overread(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        outside = a[o + m * k]
        c[o] = _nan_with_payload(i) if np.isnan(outside) else outside

    result = _check(overread, "20x30x40", repeat=2)
    assert "race" not in result.symptoms and "varies_with_outside_reads" in result.symptoms
    assert "from reads outside A or B" in result.message and "threads race" not in result.message


def test_a_race_that_also_reads_outside_the_inputs_is_still_called_a_race() -> None:
    # with zeros around the inputs the launches still differ: the threads race as well
    def racy_overread(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, i: int) -> None:
        correct(a, b, c, o, m, k, n, i)
        c[o + 1 + i % (m * n - 1)] += 1.0
        c[o] = a[o + m * k]

    result = _check(racy_overread, "20x30x40", repeat=2)
    assert result.symptoms[0] == "race" and "nan" in result.symptoms
    assert "threads race" in result.message and "reads outside A or B" in result.message

"""The timing engine end to end through pytest-benchmark, with host-side stand-ins for the two
kernels (the engine is the same on a GPU; only the launches and the clock's synchronisation
differ): interleaving, the JSON kept for instructors, and every timed launch verified."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from grader.checks import bench_gemm
from grader.checks.launch_check import PRECISION_FACTOR, LaunchCheck
from grader.checks.timing import (
    TimedKernel,
    TimingSession,
    interleaved,
    merge_json,
)


@pytest.fixture(autouse=True)
def _host_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_gemm, "synchronize", lambda: None)


# A stand-in student kernel: given A, B, the output and the launch number, it writes (or not).
Student = Callable[[np.ndarray, np.ndarray, np.ndarray, int], None]


def _draw(seed: int = 0) -> Callable[[tuple[int, ...]], np.ndarray]:
    rng = np.random.default_rng(seed)
    return lambda shape: rng.uniform(-1, 1, shape).astype(np.float32)


def _session(student: Student) -> TimingSession:
    draw = _draw()
    a, b = draw((24, 16)), draw((16, 20))
    outputs = {label: np.empty((24, 20), dtype=np.float32) for label in ("baseline", "student")}
    calls = [0]

    def baseline() -> None:
        time.sleep(0.002)
        outputs["baseline"][...] = a @ b

    def run_student() -> None:
        calls[0] += 1
        student(a, b, outputs["student"], calls[0])

    kernels = {
        "baseline": TimedKernel("baseline", baseline, outputs["baseline"]),
        "student": TimedKernel("student", run_student, outputs["student"]),
    }
    check = LaunchCheck(a, b, draw, factor=2.0)
    return TimingSession(kernels, check, np.zeros(64, dtype=np.uint8), rounds=3)


def fast_and_right(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
    time.sleep(0.001)
    out[...] = a @ b


def test_blocks_alternate_and_the_speedup_is_the_ratio_of_medians(tmp_path: Path) -> None:
    session = _session(fast_and_right)
    timing = interleaved(session, min_pairs=4, rse_target=0.5, time_cap_s=30, keep=tmp_path)
    assert timing.bad == []
    assert timing.blocks == 4
    assert len(session.samples["student"]) == len(session.samples["baseline"]) == 4
    assert 1.4 < timing.speedup < 2.6  # 2 ms against 1 ms, give or take the host's timer
    data = json.loads(timing.json_files[0].read_text())
    names = [b["name"] for b in data["benchmarks"]]
    assert names[:4] == [
        "test_gemm[0-baseline]",
        "test_gemm[0-student]",
        "test_gemm[1-baseline]",
        "test_gemm[1-student]",
    ]
    assert all(b["stats"]["rounds"] == 3 for b in data["benchmarks"])


def test_every_timed_launch_is_verified(tmp_path: Path) -> None:
    def lazy_after_three(a: np.ndarray, b: np.ndarray, out: np.ndarray, call: int) -> None:
        if call <= 3:
            fast_and_right(a, b, out, call)

    timing = interleaved(
        _session(lazy_after_three), min_pairs=2, rse_target=0.5, time_cap_s=30, keep=tmp_path
    )
    wrong = [b for b in timing.bad if b.label == "student"]
    assert wrong
    assert wrong[0].launch_number == 4
    assert wrong[0].verdict.wrong == 24 * 20  # poisoned before the launch and never written
    assert wrong[0].describe() == "480 of 480 elements of C wrong"
    assert not [b for b in timing.bad if b.label == "baseline"]


def test_a_kernel_that_overwrites_its_inputs_cannot_fake_the_reference(tmp_path: Path) -> None:
    # zeros in A, B and C agree with each other: the reference comes from the check's own copies
    def zero_everything(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
        a[...], b[...], out[...] = 0.0, 0.0, 0.0

    timing = interleaved(
        _session(zero_everything), min_pairs=2, rse_target=0.5, time_cap_s=30, keep=tmp_path
    )
    first = next(b for b in timing.bad if b.label == "student")
    assert first.verdict.inputs_changed == 24 * 16 + 16 * 20
    assert first.describe().startswith("the kernel wrote into its inputs (704 elements")


def test_a_result_kept_from_an_earlier_launch_is_caught(tmp_path: Path) -> None:
    # The inputs are drawn afresh before every launch: a C computed once and copied out on
    # later launches (fast, and right were the inputs the same) is wrong from the second on.
    kept: list[np.ndarray] = []

    def memoizing(a: np.ndarray, b: np.ndarray, out: np.ndarray, call: int) -> None:
        if not kept:
            kept.append(a @ b)
        out[...] = kept[0]

    timing = interleaved(
        _session(memoizing), min_pairs=2, rse_target=0.5, time_cap_s=30, keep=tmp_path
    )
    wrong = [b for b in timing.bad if b.label == "student"]
    assert [b.launch_number for b in wrong][:2] == [2, 3]


def test_the_merged_json_keeps_the_machine_facts(tmp_path: Path) -> None:
    session = _session(fast_and_right)
    timing = interleaved(session, min_pairs=2, rse_target=0.5, time_cap_s=30, keep=tmp_path / "k")
    merge_json(timing.json_files, tmp_path / "benchmark.json", {"gpu": "stand-in"})
    merged = json.loads((tmp_path / "benchmark.json").read_text())
    assert merged["grader_machine"] == {"gpu": "stand-in"}
    assert len(merged["benchmarks"]) == 2 * timing.blocks


def test_no_slow_machine_probe_runs_for_each_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # py-cpuinfo took 1.1 s of every check on the H200 (profiled); the grader skips it.
    import cpuinfo

    def forbidden() -> None:
        raise AssertionError("py-cpuinfo was called")

    monkeypatch.setattr(cpuinfo, "get_cpu_info", forbidden)
    timing = interleaved(
        _session(fast_and_right), min_pairs=2, rse_target=0.5, time_cap_s=30, keep=tmp_path
    )
    data = json.loads(timing.json_files[0].read_text())
    assert set(data["machine_info"]) == {"node", "python_version"}
    assert data["commit_info"] == {}


def _check(seed: int = 0, m: int = 64, k: int = 512, n: int = 48):  # type: ignore[no-untyped-def]
    draw = _draw(seed)
    a, b = draw((m, k)), draw((k, n))
    return a, b, LaunchCheck(a, b, draw, factor=2.0)


def test_the_launch_check_passes_other_summation_orders() -> None:
    a, b, check = _check()
    # float32 sums in several orders and precisions: all within the proven bound
    forward = a @ b
    backward = (a[:, ::-1] @ b[::-1, :]).astype(np.float32)
    pairwise = sum(a[:, i : i + 16] @ b[i : i + 16, :] for i in range(0, 512, 16))
    sequential = np.zeros_like(forward)
    for i in range(512):
        sequential += a[:, i : i + 1] * b[i : i + 1, :]  # the least accurate order
    exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    for output in (forward, backward, pairwise, sequential, exact):
        verdict = check.verdict(np.ascontiguousarray(output, dtype=np.float32))
        assert verdict.ok, verdict
        assert verdict.relative_error < verdict.precision_limit / 8


def test_the_launch_check_catches_skipped_work() -> None:
    a, b, check = _check()
    right = a @ b
    unwritten = right.copy()
    unwritten[5, 7] = np.nan  # one element left poisoned
    assert check.verdict(unwritten).wrong == 1
    half_k = a[:, :256] @ b[:256, :]  # only half of K summed
    assert check.verdict(half_k).wrong > 64 * 48 * 0.9
    some_k = (a[:, 16:] @ b[16:, :]) * (512 / 496)  # 1/32 of the terms left out, rescaled
    assert check.verdict(some_k).wrong > 64 * 48 * 0.5
    one_off = right.copy()
    one_off[3, 9] += 0.05  # one element off by 0.05, over its bound of about 0.008
    assert check.verdict(one_off).wrong == 1


def _tf32(x: np.ndarray) -> np.ndarray:
    """x with its mantissa rounded to TF32's 10 bits, as tensor cores read it."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def test_products_in_lower_precision_fail_though_every_element_is_within_bound() -> None:
    a, b, check = _check(m=64, k=2048, n=64)
    tf32 = (_tf32(a).astype(np.float64) @ _tf32(b).astype(np.float64)).astype(np.float32)
    verdict = check.verdict(tf32)
    assert verdict.wrong == 0  # the worst-case elementwise bound admits TF32 at K = 2048
    assert verdict.relative_error > 10 * verdict.precision_limit
    assert not verdict.ok
    assert verdict.precision_limit == PRECISION_FACTOR * 2048**0.5 * 2.0**-24


def test_renewing_draws_new_inputs_in_place() -> None:
    a, _, check = _check()
    before_a, identity = a.copy(), id(check.a)
    check.renew()
    assert id(check.a) == identity and not np.array_equal(check.a, before_a)

"""The timing loop end to end, with host-side stand-ins for the kernels (the loop is the same on
a GPU; only the launches and the clock differ): interleaving, the L2 flush before every launch,
the statistics, the JSON kept for instructors, and every timed launch verified."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from grader.backends.timed_gemm import ErrorBound, OutputComparison
from grader.checks.correctness import POISON_BITS
from grader.checks.launch_check import LaunchCheck
from grader.timing.benchmark_json import write_benchmark_json
from grader.timing.rounds import Timing, TimingPlan, interleaved
from tests.timing.host_gemm import HostKernel, HostTimedGemm, drawing


def fast_and_right(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
    time.sleep(0.001)
    out[...] = a @ b


def slow_and_right(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
    time.sleep(0.002)
    out[...] = a @ b


def _gemm(student: HostKernel) -> HostTimedGemm:
    draw = drawing()
    gemm = HostTimedGemm(draw((24, 16)), draw((16, 20)), draw)
    gemm.add_host_kernel("baseline", slow_and_right)
    gemm.add_host_kernel("student", student)
    return gemm


def _time(gemm: HostTimedGemm, min_blocks: int = 2, rse_target: float = 0.5) -> Timing:
    labels = list(gemm.kernels)
    plan = TimingPlan(
        labels, 3, min_blocks, rse_target, 30.0, ("baseline", "student"), int(POISON_BITS)
    )
    check = LaunchCheck(gemm, factor=2.0)
    return interleaved(gemm, plan, dict.fromkeys(("baseline", "student"), check.queue_problem))


def test_blocks_alternate_and_the_speedup_is_the_ratio_of_medians(tmp_path: Path) -> None:
    gemm = _gemm(fast_and_right)
    timing = _time(gemm, min_blocks=4, rse_target=10.0)  # one batch of 4 blocks
    assert timing.bad == []
    assert timing.blocks == 4
    order = [(block.index, block.label) for block in timing.samples]
    assert order[:4] == [(0, "baseline"), (0, "student"), (1, "baseline"), (1, "student")]
    assert all(block.stats.rounds == 3 for block in timing.samples)
    # the speedup is the ratio of the medians of every timed launch (not of the host's timer,
    # which a loaded machine stretches unevenly: no bound on the 2 ms against 1 ms here)
    medians = {
        label: np.median([t for b in timing.samples if b.label == label for t in b.stats.data])
        for label in ("baseline", "student")
    }
    assert timing.medians == medians
    assert timing.speedup == pytest.approx(medians["baseline"] / medians["student"])
    # warm-up once per kernel, then 3 timed launches per block; the L2 flushed before each
    assert timing.launches == {"baseline": 13, "student": 13}
    assert gemm.flushes == 26


def test_every_timed_launch_is_verified() -> None:
    def lazy_after_three(a: np.ndarray, b: np.ndarray, out: np.ndarray, call: int) -> None:
        if call <= 3:
            fast_and_right(a, b, out, call)

    timing = _time(_gemm(lazy_after_three))
    wrong = [b for b in timing.bad if b.label == "student"]
    assert wrong
    assert wrong[0].launch_number == 4
    # poisoned before the launch and never written
    assert wrong[0].describe() == "480 of 480 elements of C wrong"
    assert not [b for b in timing.bad if b.label == "baseline"]


def test_a_kernel_that_overwrites_its_inputs_cannot_fake_the_reference() -> None:
    # zeros in A, B and C agree with each other: the reference comes from the inputs as drawn
    def zero_everything(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
        a[...], b[...], out[...] = 0.0, 0.0, 0.0

    timing = _time(_gemm(zero_everything))
    first = next(b for b in timing.bad if b.label == "student")
    assert first.describe().startswith("the kernel wrote into its inputs (704 elements")


def test_a_result_kept_from_an_earlier_launch_is_caught() -> None:
    # The inputs are drawn afresh before every launch: a C computed once and copied out on
    # later launches (fast, and right were the inputs the same) is wrong from the second on.
    kept: list[np.ndarray] = []

    def memoizing(a: np.ndarray, b: np.ndarray, out: np.ndarray, call: int) -> None:
        if not kept:
            kept.append(a @ b)
        out[...] = kept[0]

    timing = _time(_gemm(memoizing))
    wrong = [b for b in timing.bad if b.label == "student"]
    assert [b.launch_number for b in wrong][:2] == [2, 3]


def test_a_kernel_the_plan_does_not_verify_is_timed_alongside() -> None:
    gemm = _gemm(fast_and_right)
    gemm.add_library_gemm("cublas")
    timing = _time(gemm)
    assert [block.label for block in timing.samples][:3] == ["baseline", "student", "cublas"]
    assert timing.bad == [] and timing.launches["cublas"] == 1 + 3 * timing.blocks
    assert timing.medians["cublas"] < timing.medians["baseline"]


class _Journal(HostTimedGemm):
    """Notes when launches are queued and when their times and checks are read."""

    def __init__(self, gemm: HostTimedGemm) -> None:
        super().__init__(gemm.a, gemm.b, drawing(1))
        self.outputs, self.kernels = gemm.outputs, gemm.kernels
        self.journal: list[str] = []

    def queue_launch(self, label: str) -> Callable[[], float]:
        self.journal.append("launch")
        seconds = super().queue_launch(label)
        return lambda: self.journal.append("read time") or seconds()

    def queue_compare(self, label: str, bound: ErrorBound) -> Callable[[], OutputComparison]:
        found = super().queue_compare(label, bound)
        return lambda: self.journal.append("read check") or found()


def test_the_loop_reads_nothing_back_until_a_batch_of_blocks_is_queued() -> None:
    # on a GPU, a read waits for the device: none between launches, so that they run back to
    # back and the host's own load opens no gap between them
    gemm = _Journal(_gemm(fast_and_right))
    timing = _time(gemm, min_blocks=4, rse_target=10.0)  # one batch of 4 blocks
    assert timing.bad == [] and timing.blocks == 4
    launches = 2 * (1 + 4 * 3)  # two kernels: a warm-up, then 4 blocks of 3
    assert gemm.journal[:launches] == ["launch"] * launches
    reads = gemm.journal[launches:]
    assert reads.count("read check") == launches and reads.count("read time") == 2 * 4 * 3


def test_the_loop_stops_once_the_ratio_is_known_to_its_target() -> None:
    # an unreachable target: the loop goes on past the first batch, in batches of two blocks,
    # until the time cap; a loose one stops it after the first batch
    gemm = _gemm(fast_and_right)
    plan = TimingPlan(
        ["baseline", "student"], 1, 4, 0.0, 0.05, ("baseline", "student"), int(POISON_BITS)
    )
    timing = interleaved(gemm, plan, {})
    assert timing.blocks >= 6 and (timing.blocks - 4) % 2 == 0
    assert _time(_gemm(fast_and_right), min_blocks=4, rse_target=10.0).blocks == 4


def test_the_json_is_pytest_benchmarks_with_the_machine_facts(tmp_path: Path) -> None:
    timing = _time(_gemm(fast_and_right))
    target = tmp_path / "kept" / "benchmark.json"
    write_benchmark_json(timing, target, {"gpu": "stand-in"}, lambda label: "perf_counter")
    data = json.loads(target.read_text())
    assert data["grader_machine"] == {"gpu": "stand-in"}
    assert set(data["machine_info"]) == {"node", "python_version"}
    assert data["commit_info"] == {}
    names = [b["name"] for b in data["benchmarks"]]
    assert names[:4] == [
        "test_gemm[0-baseline]",
        "test_gemm[0-student]",
        "test_gemm[1-baseline]",
        "test_gemm[1-student]",
    ]
    first = data["benchmarks"][0]
    assert first["group"] == "baseline" and first["extra_info"] == {"block": 0}
    assert first["options"]["timer"] == "perf_counter"
    stats = first["stats"]
    assert stats["rounds"] == 3 and len(stats["data"]) == 3 and stats["iterations"] == 1
    assert stats["median"] == np.median(stats["data"])
    assert {"min", "max", "mean", "stddev", "iqr", "q1", "q3", "outliers", "ops"} <= set(stats)

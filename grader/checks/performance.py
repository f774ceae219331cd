"""The performance check: the student's kernel against a baseline from reference/, on the same GPU
in the same run, interleaved, with every timed launch's output verified. Thresholds are ratios
(baseline median / student median), chosen per GPU; where a number meets a threshold is here."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.backends.base import Backend
from grader.backends.compiler import CompiledKernel, CompileFailure, compile_kernel
from grader.checks.correctness import POISON_BITS
from grader.checks.launch_check import LaunchCheck
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.source import read_source
from grader.spec import ExerciseSpec, PerformanceSpec, ThresholdSpec
from grader.timing.benchmark_json import write_benchmark_json
from grader.timing.rounds import Timing, TimingPlan, interleaved

CHECK = "performance"
TIMING_SLACK_S = 10.0
"""Beyond the time cap: warm-up launches, the last batch of blocks."""
LABELS = ("baseline", "student", "cublas")
"""The kernels of each block, in order: cuBLAS is timed alongside, as context for the figures."""


@dataclass(frozen=True)
class Threshold:
    spec: ThresholdSpec
    why: str


def choose_threshold(spec: PerformanceSpec, gpu_name: str, arch: str) -> Threshold:
    """This GPU's thresholds: by its name, else by its architecture, else the default."""
    if gpu_name in spec.gpus:
        return Threshold(spec.gpus[gpu_name], f"calibrated for {gpu_name}")
    if arch in spec.gpus:
        return Threshold(spec.gpus[arch], f"set for {arch}")
    return Threshold(spec.default, f"the default: no threshold recorded for {gpu_name}")


def grade_speedup(
    speedup: float, threshold: ThresholdSpec, points: float
) -> tuple[CheckStatus, float]:
    """Failed below min_speedup; with a target, points grow linearly from 0 at min to all at
    target; without one, all points at min."""
    if speedup < threshold.min_speedup:
        return CheckStatus.FAILED, 0.0
    if threshold.target_speedup is None or speedup >= threshold.target_speedup:
        return CheckStatus.PASSED, points
    share = (speedup - threshold.min_speedup) / (threshold.target_speedup - threshold.min_speedup)
    return CheckStatus.PASSED, round(points * share, 2)


def _gflops(m: int, k: int, n: int, seconds: float) -> float:
    return 2.0 * m * k * n / seconds / 1e9


def _unfair(timing: Timing) -> str:
    rounds_per_kernel = timing.launches.get("student", 0)
    wrong = [b for b in timing.bad if b.label == "student"]
    first = wrong[0]
    return (
        f"the kernel's output was wrong on {len(wrong)} of {rounds_per_kernel} timed launches "
        f"(first: launch {first.launch_number}, {first.describe()}). Every launch is checked: "
        "the output is poisoned before each one and its inputs are new, so work skipped on "
        "repeated launches, at large sizes, or replaced by a result kept from before, is caught."
    )


def run_performance(
    backend: Backend,
    spec: ExerciseSpec,
    course_root: Path,
    compiled: CompiledKernel,
    seed: int,
    keep: Path,
    on_timing: Callable[[float], None] = lambda extra_s: None,
) -> CheckResult:
    """Time the student's kernel against the baseline; `on_timing(extra_s)` is called when the
    timed launches begin, with the time they may take beyond a check's limit (so that a kernel
    that hangs only when timed is stopped soon, not after the whole stage's allowance)."""
    perf = spec.performance
    assert perf is not None
    shape = perf.dims
    points = float(perf.points)
    baseline_source = read_source(course_root / perf.baseline.file)
    baseline = compile_kernel(
        baseline_source, perf.baseline.name, perf.baseline.defines, backend.arch
    )
    if isinstance(baseline, CompileFailure):
        return CheckResult(
            CHECK,
            CheckKind.PERFORMANCE,
            CheckStatus.ERROR,
            0.0,
            points,
            f"baseline: {baseline.message}",
        )
    began = time.monotonic()
    gemm = backend.timed_gemm(shape, seed)
    gemm.add_kernel("baseline", baseline, perf.baseline.launch.block, perf.baseline.launch.tile)
    gemm.add_kernel("student", compiled, spec.launch.block, spec.launch.tile)
    gemm.add_library_gemm("cublas")
    check = LaunchCheck(gemm, spec.correctness.tolerance.factor)
    plan = TimingPlan(
        list(LABELS),
        perf.rounds,
        perf.min_pairs,
        perf.rse_target,
        perf.time_cap_s,
        ("baseline", "student"),
        int(POISON_BITS),
    )
    before = gemm.clock_reading()
    gemm.synchronize()
    prepared = time.monotonic()
    on_timing(perf.time_cap_s + TIMING_SLACK_S)
    timing = interleaved(gemm, plan, dict.fromkeys(("baseline", "student"), check.queue_problem))
    timed = time.monotonic()
    after = gemm.clock_reading()
    cublas = timing.medians["cublas"]
    clock_before, clock_after = before.mhz(), after.mhz()
    machine = {
        "gpu": backend.device.name,
        "detail": backend.device.detail,
        "sm_clock_mhz_before": clock_before,
        "sm_clock_mhz_after": clock_after,
    }
    write_benchmark_json(timing, keep / "benchmark.json", machine, gemm.timer_name)
    student_s, base_s = timing.medians["student"], timing.medians["baseline"]
    figures = {
        "speedup": round(timing.speedup, 4),
        "student_ms": round(student_s * 1e3, 4),
        "baseline_ms": round(base_s * 1e3, 4),
        "student_gflops": round(_gflops(*shape, student_s), 1),
        "baseline_gflops": round(_gflops(*shape, base_s), 1),
        "cublas_gflops": round(_gflops(*shape, cublas), 1),
        "rse": round(timing.relative_standard_error, 5),
        "seconds": round(time.monotonic() - began, 2),
        "prepare_s": round(prepared - began, 3),
        "timed_s": round(timed - prepared, 3),
        "after_s": round(time.monotonic() - timed, 3),
    }
    if any(b.label == "baseline" for b in timing.bad):
        return CheckResult(
            CHECK,
            CheckKind.PERFORMANCE,
            CheckStatus.ERROR,
            0.0,
            points,
            "the baseline kernel gave a wrong result while timed",
            figures=figures,
        )
    if timing.bad:
        return CheckResult(
            CHECK,
            CheckKind.PERFORMANCE,
            CheckStatus.FAILED,
            0.0,
            points,
            _unfair(timing),
            ("unfair_timing",),
            figures,
        )
    threshold = choose_threshold(perf, backend.device.name, backend.arch)
    figures["min_speedup"] = threshold.spec.min_speedup
    status, score = grade_speedup(timing.speedup, threshold.spec, points)
    target = threshold.spec.target_speedup
    goal = f"needs {threshold.spec.min_speedup:.2f}x" + (
        f", all points at {target:.2f}x" if target else ""
    )
    verdict = "" if status == "passed" else "too slow: "
    message = "\n".join(
        [
            f"{verdict}{timing.speedup:.3f}x the baseline ({goal}; {threshold.why})",
            f"yours {student_s * 1e3:.3f} ms ({figures['student_gflops']:,.0f} GFLOP/s), baseline "
            f"{perf.baseline.name} {base_s * 1e3:.3f} ms "
            f"({figures['baseline_gflops']:,.0f} GFLOP/s) "
            f"at {perf.shape}; cuBLAS FP32 {figures['cublas_gflops']:,.0f} GFLOP/s, yours is "
            f"{100 * cublas / student_s:.0f}% of it",
            f"{timing.blocks} interleaved blocks of {perf.rounds} launches each, L2 flushed before "
            f"every launch, speedup RSE {100 * timing.relative_standard_error:.2f}%; SM clock "
            f"{clock_before} MHz at the start, {clock_after} at the end; {backend.device.detail}",
            "the pytest-benchmark JSON of these figures: grader check --benchmark-json PATH",
        ]
    )
    return CheckResult(
        CHECK, CheckKind.PERFORMANCE, status, score, points, message, figures=figures
    )

"""The performance check: the student's kernel against a baseline from reference/, on the same GPU
in the same run, interleaved, with every timed launch's output verified. Thresholds are ratios
(baseline median / student median), chosen per GPU; where a number meets a threshold is here."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grader.backends.gpu import GpuBackend
from grader.checks.correctness import geometry
from grader.checks.launch_check import LaunchCheck
from grader.checks.timing import (
    FLUSH_FACTOR,
    SmClock,
    TimedKernel,
    Timing,
    TimingSession,
    interleaved,
    merge_json,
)
from grader.compiler import CompiledKernel, CompileFailure, compile_kernel
from grader.course import ExerciseSpec, LaunchSpec, PerformanceSpec, Shape, ThresholdSpec
from grader.results import CheckResult, CheckStatus
from grader.source import read_source

CHECK = "performance"
TIMING_SLACK_S = 10.0
"""Beyond the time cap: loading pytest-benchmark, warm-up rounds, the last block."""


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
        return "failed", 0.0
    if threshold.target_speedup is None or speedup >= threshold.target_speedup:
        return "passed", points
    share = (speedup - threshold.min_speedup) / (threshold.target_speedup - threshold.min_speedup)
    return "passed", round(points * share, 2)


def _gflops(m: int, k: int, n: int, seconds: float) -> float:
    return 2.0 * m * k * n / seconds / 1e9


def _launcher(function: Any, launch: LaunchSpec, shape: Any, a: Any, b: Any, c: Any) -> Any:
    geo = geometry(launch, shape)
    grid, block = (*geo.grid, 1), (*geo.block, 1)
    args = (a, b, c, np.int32(shape.m), np.int32(shape.k), np.int32(shape.n))
    return lambda: function(grid, block, args)


@dataclass
class TimedInputs:
    """Device-resident inputs for timing (drawn afresh before every launch, from their own random
    stream, not the correctness check's), the check of every timed output, an L2 flush buffer."""

    shape: Shape
    check: LaunchCheck
    flush: Any

    def kernel(self, label: str, function: Any, launch: LaunchSpec) -> TimedKernel:
        import cupy as cp

        output = cp.empty((self.shape.m, self.shape.n), dtype=cp.float32)
        a, b = self.check.a, self.check.b
        return TimedKernel(label, _launcher(function, launch, self.shape, a, b, output), output)


def timed_inputs(backend: GpuBackend, shape: Shape, seed: int, factor: float) -> TimedInputs:
    import cupy as cp

    rng = cp.random.RandomState(int(np.random.SeedSequence([seed, 0x7E57]).generate_state(1)[0]))

    def draw(dims: tuple[int, ...]) -> Any:
        return rng.uniform(-1.0, 1.0, dims, dtype=cp.float32)

    a = draw((shape.m, shape.k))
    b = draw((shape.k, shape.n))
    flush = cp.empty(FLUSH_FACTOR * backend.l2_bytes(), dtype=cp.uint8)
    return TimedInputs(shape, LaunchCheck(a, b, draw, factor, backend.arch), flush)


def _cublas_seconds(cp: Any, a: Any, b: Any, flush: Any, rounds: int = 10) -> float:
    """cuBLAS SGEMM (CuPy matmul; TF32 is off unless CUPY_TF32 is set, which the grader unsets),
    timed with CUDA events after an L2 flush, as context for the student's figure."""
    out = cp.empty((a.shape[0], b.shape[1]), dtype=cp.float32)
    cp.matmul(a, b, out=out)
    times = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for i in range(rounds):
        flush.fill(i % 251)
        start.record()
        cp.matmul(a, b, out=out)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return float(np.median(times))


def _unfair(timing: Timing, rounds_per_kernel: int) -> str:
    wrong = [b for b in timing.bad if b.label == "student"]
    first = wrong[0]
    return (
        f"the kernel's output was wrong on {len(wrong)} of {rounds_per_kernel} timed launches "
        f"(first: launch {first.launch_number}, {first.describe()}). Every launch is checked: "
        "the output is poisoned before each one and its inputs are new, so work skipped on "
        "repeated launches, at large sizes, or replaced by a result kept from before, is caught."
    )


def run_performance(
    backend: GpuBackend,
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
    import cupy as cp

    shape = perf.dims
    points = float(perf.points)
    baseline_source = read_source(course_root / perf.baseline.file)
    baseline = compile_kernel(
        baseline_source, perf.baseline.name, perf.baseline.defines, backend.arch
    )
    if isinstance(baseline, CompileFailure):
        return CheckResult(
            CHECK, "performance", "error", 0.0, points, f"baseline: {baseline.message}"
        )
    began = time.monotonic()
    inputs = timed_inputs(backend, shape, seed, spec.correctness.tolerance.factor)
    kernels = {
        "baseline": inputs.kernel(
            "baseline", backend.load_function(baseline), perf.baseline.launch
        ),
        "student": inputs.kernel("student", backend.load_function(compiled), spec.launch),
    }
    a, b, flush = inputs.check.a, inputs.check.b, inputs.flush
    session = TimingSession(kernels, inputs.check, flush, perf.rounds)
    before = SmClock()
    cp.cuda.runtime.deviceSynchronize()
    prepared = time.monotonic()
    on_timing(perf.time_cap_s + TIMING_SLACK_S)
    timing = interleaved(session, perf.min_pairs, perf.rse_target, perf.time_cap_s, keep)
    timed = time.monotonic()
    after = SmClock()
    cublas = _cublas_seconds(cp, a, b, flush)
    clock_before, clock_after = before.mhz(), after.mhz()
    merge_json(
        timing.json_files,
        keep / "benchmark.json",
        {
            "gpu": backend.device.name,
            "detail": backend.device.detail,
            "sm_clock_mhz_before": clock_before,
            "sm_clock_mhz_after": clock_after,
        },
    )
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
            "performance",
            "error",
            0.0,
            points,
            "the baseline kernel gave a wrong result while timed",
            figures=figures,
        )
    if timing.bad:
        return CheckResult(
            CHECK,
            "performance",
            "failed",
            0.0,
            points,
            _unfair(timing, session.launches.get("student", 0)),
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
    return CheckResult(CHECK, "performance", status, score, points, message, figures=figures)

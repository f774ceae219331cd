"""ex2's sweep: the student's kernel built for each tile size, timed side by side on the GPU
(every launch verified), and the course's own tiled kernel (reference/tiled.cu, never the
student's file, which could fail on purpose at that size alone) built and launched at the probe
size (64): what stops it is the evidence the 'what stops 64' answer is graded against."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.backends.base import Backend
from grader.backends.compiler import CompiledKernel, CompileFailure, compile_kernel
from grader.checks.answers import Limit, SweepEvidence
from grader.checks.correctness import POISON_BITS
from grader.checks.launch_check import LaunchCheck
from grader.errors import GraderError
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.source import KernelSource, read_source
from grader.spec import AnswersSpec, ExerciseSpec, SweepSpec
from grader.timing.rounds import TimingPlan, interleaved

CHECK = "sweep timing"
REFERENCE = "reference/tiled.cu"
"""The course's tiled kernel (under the course root), built at the probe size for the evidence."""

# Limits of every CUDA GPU of compute capability 7.0 and newer, used where no device is asked.
MAX_THREADS_PER_BLOCK = 1024
MAX_STATIC_SHARED_BYTES = 48 * 1024
MAX_REGISTERS_PER_BLOCK = 65536


@dataclass(frozen=True)
class DeviceLimits:
    threads: int
    shared_bytes: int
    registers: int


def _limit_cause(
    threads: int, compiled: CompiledKernel | CompileFailure, limits: DeviceLimits
) -> tuple[Limit | None, str]:
    if isinstance(compiled, CompileFailure):
        if "shared" in compiled.message:
            return (
                "shared_memory_per_block",
                f"does not compile: {compiled.message.splitlines()[0]}",
            )
        return None, f"does not compile: {compiled.message.splitlines()[0]}"
    if threads > limits.threads:
        return (
            "threads_per_block",
            f"{threads} threads per block, over the limit of {limits.threads}",
        )
    if (compiled.shared_bytes or 0) > limits.shared_bytes:
        return "shared_memory_per_block", (
            f"{compiled.shared_bytes} bytes of shared memory, over {limits.shared_bytes}"
        )
    if compiled.registers and compiled.registers * threads > limits.registers:
        return "registers_per_thread", (
            f"{compiled.registers} registers x {threads} threads, over {limits.registers}"
        )
    return None, "nothing in the block's demands exceeds the device's limits"


def reference_kernel(course_root: Path) -> KernelSource | str:
    """The course's tiled kernel, or why there is none (then there is no evidence)."""
    try:
        return read_source(course_root / REFERENCE)
    except GraderError as exc:
        return f"the course's {REFERENCE} cannot be read ({exc})"


def probe(
    spec: ExerciseSpec, kernel: KernelSource | str, arch: str, launch_error: Any = None
) -> tuple[Limit | None, str, CompiledKernel | CompileFailure]:
    """Build `kernel` (the course's, from reference_kernel: never the student's) at the probe
    size; say what stops it, by the device's limits (CUDA's limits for every current GPU where
    there is none to ask). A str `kernel` is why there is none: no evidence, nothing built.

    The pipeline calls it as probe(spec, reference_kernel(Path(job.course_root)), arch)."""
    sweep = spec.sweep
    assert sweep is not None and sweep.probe is not None
    value = sweep.probe
    if isinstance(kernel, str):
        return None, kernel, CompileFailure(kernel)
    defines = {**spec.kernel.defines, sweep.define: value}
    compiled = compile_kernel(kernel, spec.kernel.name, defines, arch)
    limits = DeviceLimits(MAX_THREADS_PER_BLOCK, MAX_STATIC_SHARED_BYTES, MAX_REGISTERS_PER_BLOCK)
    cause, detail = _limit_cause(value * value, compiled, limits)
    return cause, f"the course's tiled kernel at {sweep.define}={value}: {detail}", compiled


def try_launch(backend: Backend, compiled: CompiledKernel, value: int) -> str:
    """Launch the probe build once on a small problem (one block of value x value threads); the
    CUDA error, or '' if it ran."""
    return backend.trial_launch(compiled, (value, value), (value, value), value)


def noise_bound(spec: ExerciseSpec) -> float:
    """The relative standard error the sweep's timing must reach: a third of the band within
    which the answers count tile sizes as tied (answers.tie_tolerance, 3% by default: 1%), so
    that the measured spread cannot move a tile size into or out of that band."""
    tie = spec.answers.tie_tolerance if spec.answers is not None else None
    if tie is None or tie <= 0:
        tie = float(AnswersSpec.model_fields["tie_tolerance"].default)
    return tie / 3


def time_sweep(
    backend: Backend, spec: ExerciseSpec, source: KernelSource, seed: int, keep: Path
) -> tuple[CheckResult, dict[int, float] | None]:
    """Time every build of the sweep at the sweep's shape; the check and median ms per value.
    (`keep` is where a check keeps files for the user: the sweep keeps none.)"""
    sweep: SweepSpec | None = spec.sweep
    assert sweep is not None
    points = float(sweep.points)
    shape = sweep.dims
    builds: dict[str, tuple[CompiledKernel, int]] = {}
    for value in sweep.values:
        defines = {**spec.kernel.defines, sweep.define: value}
        compiled = compile_kernel(source, spec.kernel.name, defines, backend.arch)
        if isinstance(compiled, CompileFailure):
            return CheckResult(
                CHECK, CheckKind.PERFORMANCE, CheckStatus.FAILED, 0.0, points, compiled.message
            ), None
        builds[f"{sweep.define}={value}"] = (compiled, value)
    gemm = backend.timed_gemm(shape, seed)
    for label, (compiled, value) in builds.items():
        gemm.add_kernel(label, compiled, (value, value), (value, value))
    check = LaunchCheck(gemm, spec.correctness.tolerance.factor)
    labels = list(builds)
    plan = TimingPlan(
        labels,
        sweep.rounds,
        sweep.min_blocks,
        noise_bound(spec),
        sweep.time_cap_s,
        (labels[0], labels[-1]),
        int(POISON_BITS),
    )
    timing = interleaved(gemm, plan, dict.fromkeys(labels, check.queue_problem))
    flops = 2.0 * shape.m * shape.k * shape.n
    medians = {v: timing.medians[f"{sweep.define}={v}"] * 1e3 for v in sweep.values}
    figures = {f"ms_{v}": round(ms, 4) for v, ms in medians.items()}
    figures |= {f"gflops_{v}": round(flops / (ms * 1e6), 1) for v, ms in medians.items()}
    if timing.bad:
        first = timing.bad[0]
        message = (
            f"{first.label}: the output was wrong on timed launch {first.launch_number} "
            f"({first.describe()}): every timed launch must compute the full result"
        )
        return CheckResult(
            CHECK, CheckKind.PERFORMANCE, CheckStatus.FAILED, 0.0, points, message, figures=figures
        ), None
    rows = [
        f"{sweep.define}={v}: {ms:.3f} ms, {flops / (ms * 1e6):,.0f} GFLOP/s"
        for v, ms in medians.items()
    ]
    message = "\n".join(
        [
            f"timed at {sweep.shape}, {timing.blocks} interleaved blocks of {sweep.rounds} "
            "launches, L2 flushed before each, every launch verified",
            *rows,
        ]
    )
    return CheckResult(
        CHECK, CheckKind.PERFORMANCE, CheckStatus.PASSED, points, points, message, figures=figures
    ), medians


def evidence_for(
    spec: ExerciseSpec,
    medians: dict[int, float] | None,
    limit: Limit | None,
    detail: str,
    no_timing: str,
) -> SweepEvidence:
    sweep = spec.sweep
    assert sweep is not None
    shape = sweep.dims
    flops = 2.0 * shape.m * shape.k * shape.n
    return SweepEvidence(medians, flops, limit, detail, no_timing)

"""What runs inside the grading child process: compile -> correctness, one result at a time.

Each finished check is emitted at once, so that if the kernel hangs or kills the process, every
check before it is already reported and the parent can carry on with the rest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from grader.backends.base import Backend, KernelRuntimeError
from grader.backends.cpu import UnsupportedKernelError
from grader.checks.correctness import CorrectnessCase, run_case
from grader.compiler import DEFAULT_ARCH, CompileFailure, compile_kernel
from grader.course import ExerciseSpec, load_spec
from grader.results import CheckKind, CheckResult, DeviceInfo
from grader.source import KernelSource

Emit = Callable[[dict[str, Any]], None]
EXIT_CONTEXT_LOST = 3
COMPILE_CHECK = "compile"


@dataclass(frozen=True)
class Job:
    """A grading job as sent to the child (JSON)."""

    spec_path: str
    source_text: str
    display_name: str
    seed: int
    backend: str = "auto"
    """`gpu`, `cpu` or `auto` (the GPU when one is usable, else the CPU)."""
    done: tuple[str, ...] = ()
    """Checks already reported by an earlier child; they are not run again."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        return cls(**{**data, "done": tuple(data["done"])})


@dataclass(frozen=True)
class PlannedCheck:
    name: str
    kind: CheckKind
    max_score: float


def correctness_cases(spec: ExerciseSpec) -> list[CorrectnessCase]:
    cases = spec.correctness.cases
    share = round(spec.correctness.points / len(cases), 4)
    return [CorrectnessCase(i, case, share) for i, case in enumerate(cases)]


def plan(spec: ExerciseSpec) -> list[PlannedCheck]:
    """Every check of an exercise, in the order they run."""
    checks = [PlannedCheck(COMPILE_CHECK, "compile", float(spec.compile.points))]
    checks += [PlannedCheck(c.name, "correctness", c.max_score) for c in correctness_cases(spec)]
    return checks


def open_backend(choice: str) -> tuple[Backend | None, DeviceInfo]:
    """The backend asked for, or None with a DeviceInfo whose detail says why there is none."""
    from grader.backends.cpu import CpuBackend, CpuUnavailableError
    from grader.backends.gpu import GpuBackend, GpuUnavailableError

    reasons: list[str] = []
    if choice in ("gpu", "auto"):
        try:
            gpu = GpuBackend()
            return gpu, gpu.device
        except GpuUnavailableError as exc:
            reasons.append(str(exc))
    if choice in ("cpu", "auto"):
        try:
            cpu = CpuBackend()
            return cpu, cpu.device
        except CpuUnavailableError as exc:
            reasons.append(f"CPU backend unavailable: {exc}")
    return None, DeviceInfo(backend="none", name="no device", detail="; ".join(reasons))


def execute(job: Job, emit: Emit) -> int:
    """Run the job's remaining checks, emitting each result; returns the process exit code."""
    spec = load_spec(Path(job.spec_path))
    source = KernelSource(job.source_text, job.display_name)
    backend, device = open_backend(job.backend)
    emit({"event": "device", "device": asdict(device)})

    def report(result: CheckResult) -> None:
        if result.name not in job.done:
            emit({"event": "result", "result": result.to_json()})

    compiled = compile_kernel(
        source, spec.kernel.name, spec.kernel.defines, backend.arch if backend else DEFAULT_ARCH
    )
    cases = correctness_cases(spec)
    if isinstance(compiled, CompileFailure):
        report(
            CheckResult(
                COMPILE_CHECK, "compile", "failed", 0.0, spec.compile.points, compiled.message
            )
        )
        for case in cases:
            report(_skipped(case.name, case.max_score, "not run: the kernel does not compile"))
        return 0
    resources = (
        f"{compiled.registers} registers, {compiled.shared_bytes} bytes of shared memory"
        if compiled.registers is not None
        else ""
    )
    report(
        CheckResult(
            COMPILE_CHECK,
            "compile",
            "passed",
            spec.compile.points,
            spec.compile.points,
            f"compiled for {backend.arch if backend else DEFAULT_ARCH}"
            + (f" ({resources})" if resources else ""),
        )
    )
    pending = [case for case in cases if case.name not in job.done]
    if backend is None:
        for case in pending:
            report(_skipped(case.name, case.max_score, f"not run: {device.detail}"))
        return 0
    try:
        backend.prepare(source, compiled, spec.kernel.defines)
    except (KernelRuntimeError, UnsupportedKernelError) as exc:
        for case in pending:
            report(_error(case, f"not run: {exc}"))
        return 0
    for case in pending:
        shape = case.case.dims
        launches = backend.launches(shape.m, shape.k, shape.n, case.case.repeat)
        # a failing case may take two more launches (the race and NaN probes)
        extra = backend.extra_time_s(shape.m, shape.k, shape.n, launches + 2)
        emit({"event": "start", "check": case.name, "extra_s": extra})
        try:
            result = run_case(backend, spec, case, job.seed)
        except KernelRuntimeError as exc:
            report(_failed(case, f"the kernel failed on the {device.backend.upper()}: {exc}"))
            if exc.context_lost:
                return EXIT_CONTEXT_LOST
            continue
        except UnsupportedKernelError as exc:
            report(_error(case, f"not run: {exc}"))
            continue
        report(_with_warnings(result, backend.take_warnings()))
    return 0


def _failed(case: CorrectnessCase, message: str) -> CheckResult:
    return CheckResult(
        case.name, "correctness", "failed", 0.0, case.max_score, message, ("runtime_error",)
    )


def _error(case: CorrectnessCase, message: str) -> CheckResult:
    return CheckResult(case.name, "correctness", "error", 0.0, case.max_score, message)


def _with_warnings(result: CheckResult, warnings: list[str]) -> CheckResult:
    if not warnings:
        return result
    text = "\n".join(f"warning: {w}" for w in warnings)
    return replace(result, message=f"{result.message}\n{text}")


def _skipped(name: str, max_score: float, why: str) -> CheckResult:
    return CheckResult(name, "correctness", "skipped", 0.0, max_score, why)

"""What runs inside the grading child process: compile -> correctness, one result at a time.

Each finished check is emitted at once, so that if the kernel hangs or kills the process, every
check before it is already reported and the parent can carry on with the rest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grader.backends.base import Backend, KernelRuntimeError
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


def _open_backend() -> tuple[Backend | None, DeviceInfo]:
    from grader.backends.gpu import GpuBackend, GpuUnavailableError

    try:
        backend = GpuBackend()
    except GpuUnavailableError as exc:
        return None, DeviceInfo(backend="none", name="no device", detail=str(exc))
    return backend, backend.device


def execute(job: Job, emit: Emit) -> int:
    """Run the job's remaining checks, emitting each result; returns the process exit code."""
    spec = load_spec(Path(job.spec_path))
    source = KernelSource(job.source_text, job.display_name)
    backend, device = _open_backend()
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
    for case in cases:
        if case.name in job.done:
            continue
        if backend is None:
            report(_skipped(case.name, case.max_score, f"not run: {device.detail}"))
            continue
        emit({"event": "start", "check": case.name})
        try:
            result = run_case(backend, compiled, spec, case, job.seed)
        except KernelRuntimeError as exc:
            report(
                CheckResult(
                    case.name,
                    "correctness",
                    "failed",
                    0.0,
                    case.max_score,
                    f"the kernel failed on the GPU: {exc}",
                    ("cuda_error",),
                )
            )
            return EXIT_CONTEXT_LOST
        report(result)
    return 0


def _skipped(name: str, max_score: float, why: str) -> CheckResult:
    return CheckResult(name, "correctness", "skipped", 0.0, max_score, why)

"""What runs inside the grading child: the exercise's checks in order, each result sent to the
parent as soon as it is known.

So if the kernel hangs or kills the process, every result before it is already reported, and
the parent carries on with the rest in a fresh child. The runner knows no check by name: it
asks the registry for the exercise's checks, skips those that need a device where there is
none, and stops where a check says nothing after it can run."""

from __future__ import annotations

import os
from pathlib import Path

from grader.backends.base import Backend
from grader.checks.base import EXIT_TIMING_DEFERRED, Check, Context, Emit, Exit, Halt
from grader.checks.registry import checks_for, plan
from grader.errors import GraderError
from grader.events import DeviceEvent
from grader.job import Job
from grader.results import HOST_FAILED, NO_DEVICE, CheckResult, CheckStatus, DeviceInfo
from grader.sandbox import HIDE_ENV, mode
from grader.source import KernelSource
from grader.spec import ExerciseSpec


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


def execute(
    job: Job,
    emit: Emit,
    opened: tuple[Backend | None, DeviceInfo] | None = None,
    *,
    close: bool = True,
) -> int:
    """Run the job's remaining checks, emitting each result; returns the process exit code.
    `opened`: the backend the child opened while waiting for the job (else it is opened here);
    `close=False` leaves it open for the next job (the caller recycles it)."""
    spec = ExerciseSpec.model_validate(job.spec)
    # Native student code (the CPU backend) never sees the course's solutions.
    hidden = [str(Path(job.course_root).resolve() / "solutions"), os.environ.get(HIDE_ENV, "")]
    os.environ[HIDE_ENV] = os.pathsep.join(p for p in hidden if p)
    backend, device = opened or open_backend(job.backend)
    used, device = _isolated(backend, device)
    source = KernelSource(job.source_text, job.display_name)
    context = Context(job, spec, source, used, device, emit)
    try:
        return run_checks(context)
    finally:
        if backend is not None and close:
            backend.close()


def _isolated(backend: Backend | None, device: DeviceInfo) -> tuple[Backend | None, DeviceInfo]:
    """The CPU backend runs students' code natively: where it cannot be isolated from this
    job's hidden paths (no bubblewrap, and the solutions readable by any user), there is no
    backend, and the detail says what to fix. Found at the first launch instead, it would leave
    every check to a GPU, and a stub would "pass" what ran."""
    if backend is None or device.backend != "cpu":
        return backend, device
    try:
        mode()
    except GraderError as exc:
        return None, DeviceInfo(
            backend="none", name="no device", detail=f"CPU backend unavailable: {exc}"
        )
    return backend, device


def _running(context: Context, checks: list[Check]) -> set[str]:
    """The checks that run under the job's -k selection: those with a selected result, those a
    running one needs, and compiling, which everything needs."""
    running: set[str] = set()
    for check in reversed(checks):
        wanted = any(context.selected(p.name) for p in check.plan(context.spec))
        needed = any(check.key in c.needs for c in checks if c.key in running)
        if check.key == "compile" or wanted or needed:
            running.add(check.key)
    return running


def _deferred(check: Check, context: Context) -> bool:
    """Whether the job leaves `check` for later (Job.defer_timing): it would take the GPU alone
    and time something (a kernel that failed a check is not timed)."""
    if not (check.takes_gpu_alone and context.job.defer_timing):
        return False
    backend = context.backend
    left = [p for p in check.plan(context.spec) if not context.done(p.name)]
    return bool(left) and backend is not None and backend.times_kernels and not context.any_failed


def run_checks(context: Context) -> int:
    """Every check of the exercise in order; returns the child's exit code."""
    context.emit(DeviceEvent(device=context.device))
    planned = plan(context.spec)
    checks = checks_for(context.spec)
    running = _running(context, checks)
    for check in checks:
        if check.key not in running:
            for result in check.plan(context.spec):
                if not context.done(result.name):
                    context.report(context.deselected(result))
            continue
        if context.stopping:
            outcome: Halt | Exit | None = context.stopping
        elif check.uses_device and context.backend is None:
            outcome = Halt(f"not run: {context.device.detail}", symptoms=(NO_DEVICE,))
        elif _deferred(check, context):
            return EXIT_TIMING_DEFERRED
        else:
            try:
                outcome = check.run(context)
            except GraderError as exc:  # the host failed (no isolation for native code): no verdict
                outcome = Halt(f"not run: {exc}", CheckStatus.ERROR, symptoms=(HOST_FAILED,))
        if isinstance(outcome, Exit):
            return outcome.code
        if isinstance(outcome, Halt):
            reported = {r.name for r in context.reported}
            for rest in planned:
                if not context.done(rest.name) and rest.name not in reported:
                    context.report(
                        CheckResult(
                            rest.name,
                            rest.kind,
                            outcome.status,
                            0.0,
                            rest.max_score,
                            outcome.reason,
                            outcome.symptoms,
                        )
                    )
            return outcome.exit_code
    return 0

"""Runs a grading job in child processes, with a time limit on each check.

The child reports each check as it finishes. A check that outlives the time limit is failed
and its process group killed; a child that dies (a CUDA error, a crash) costs only the check it
was running, and a fresh child carries on with the rest. The parent never touches the GPU.
One child's run is grader/child_run.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from grader import memory_watch
from grader.checks.base import EXIT_CONTEXT_LOST, EXIT_TIMING_DEFERRED, PlannedCheck
from grader.child_run import (
    GradingStoppedError,
    Progress,
    allow_gradings,
    describe_exit,
    run_child,
    stop_gradings,
)
from grader.children import worker_command
from grader.job import Job
from grader.results import CheckResult, CheckStatus, DeviceInfo, Stage

__all__ = [
    "Graded",
    "GradingStoppedError",
    "Progress",
    "advance",
    "allow_gradings",
    "finish",
    "run_isolated",
    "stop_gradings",
]


@dataclass
class Graded:
    """What the children of one grading reported so far."""

    results: dict[str, CheckResult] = field(default_factory=dict)
    stages: list[Stage] = field(default_factory=list)
    device: DeviceInfo | None = None
    deferred: bool = False
    """It stopped before its timed checks (Job.defer_timing); `advance` again goes on."""


def run_isolated(
    job: Job,
    planned: Sequence[PlannedCheck],
    time_limit: float,
    command: Sequence[str] | None = None,
    progress: Progress = lambda what: None,
) -> tuple[DeviceInfo, list[CheckResult], list[Stage]]:
    """Run every planned check; returns the device, one result per planned check, in order, and
    the stages before the checks (builds) with their times. `progress` hears what starts."""
    return finish(advance(job, planned, time_limit, command, progress), planned)


def finish(
    graded: Graded, planned: Sequence[PlannedCheck]
) -> tuple[DeviceInfo, list[CheckResult], list[Stage]]:
    """A complete grading's device, results in planned order, and stages."""
    unknown = DeviceInfo(
        backend="none", name="unknown", detail="the grading process reported no device"
    )
    return graded.device or unknown, [graded.results[p.name] for p in planned], graded.stages


def advance(
    job: Job,
    planned: Sequence[PlannedCheck],
    time_limit: float,
    command: Sequence[str] | None = None,
    progress: Progress = lambda what: None,
    so_far: Graded | None = None,
) -> Graded:
    """Run the planned checks not yet in `so_far` until every one has a result, or, where the
    job defers timing, until a child stops before a timed check (`deferred`)."""
    command = list(command or worker_command())
    graded = so_far or Graded()
    graded.deferred = False
    results = graded.results
    while len(results) < len(planned):
        failed = [r for r in results.values() if r.failed_or_errored]
        found = any(job.bears_out(r.kind, r.message) for r in failed)
        job_now = replace(job, done=tuple(results), any_failed=bool(failed), reason_found=found)
        run = run_child(job_now, time_limit, command, progress)
        if run.interrupted:
            raise GradingStoppedError("stopped before it finished")
        graded.device = run.device or graded.device
        graded.stages += run.stages
        names = {p.name for p in planned}
        for result in run.results:
            if result.name in names:  # a name no check planned is not a result of this grading
                results.setdefault(result.name, result)
        pending = [p for p in planned if p.name not in results]
        if not pending:
            break
        if job.defer_timing and run.returncode == EXIT_TIMING_DEFERRED:
            graded.deferred = True
            break
        current = pending[0]
        if run.timed_out or run.out_of_memory:
            if run.timed_out:
                message, symptom, hit = _timeout_message(current, run.limit), "timeout", "time"
            else:
                message, symptom, hit = _memory_message(current), "memory", "memory"
            results[current.name] = _result(current, CheckStatus.FAILED, message, (symptom,))
            for rest in pending[1:]:
                results[rest.name] = _result(
                    rest,
                    CheckStatus.SKIPPED,
                    f"not run: the kernel hit the {hit} limit in '{current.name}'",
                )
            break
        if run.returncode != EXIT_CONTEXT_LOST or not run.results:
            # The child died while running `current` (or made no progress): that check cannot
            # be graded; a fresh child carries on with the rest.
            why = describe_exit(run.returncode, run.stderr)
            if run.bad_frame:
                why = f"the grading process sent what is not an event ({run.bad_frame})"
            results[current.name] = _result(current, CheckStatus.ERROR, why, ("crash",))
    return graded


def _timeout_message(check: PlannedCheck, limit: float) -> str:
    if check.kind == "compile":
        return (
            f"the compiler did not finish within the time limit of {limit:.3g} s and was "
            "stopped: macros or loops that expand without end?"
        )
    if check.kind not in ("correctness", "performance"):
        return f"did not finish within the time limit of {limit:.3g} s and was stopped"
    return (
        f"did not finish within the time limit of {limit:.3g} s and was stopped: an endless "
        "loop, or a __syncthreads() that some threads never reach?"
    )


def _memory_message(check: PlannedCheck) -> str:
    limit_mb = memory_watch.limit_bytes() // (1024 * 1024)
    what = "the compiler" if check.kind == "compile" else "the grading process"
    return (
        f"{what} used more than {limit_mb:,} MB of host memory and was stopped "
        f"({memory_watch.LIMIT_ENV} sets the limit)"
    )


def _result(
    check: PlannedCheck, status: CheckStatus, message: str, symptoms: tuple[str, ...] = ()
) -> CheckResult:
    return CheckResult(check.name, check.kind, status, 0.0, check.max_score, message, symptoms)

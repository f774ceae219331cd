"""Runs a grading job in child processes, with a time limit on each check.

The child reports each check as it finishes. A check that outlives the time limit is failed
and its process group killed; a child that dies (a CUDA error, a crash) costs only the check it
was running, and a fresh child carries on with the rest. The parent never touches the GPU."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import IO

from grader import memory_watch
from grader.checks.base import EXIT_CONTEXT_LOST, PlannedCheck
from grader.children import Spawned, finished, take, worker_command
from grader.events import (
    BadFrameError,
    DeviceEvent,
    Event,
    FinishedEvent,
    ResultEvent,
    StageEvent,
    StartEvent,
    decode,
    frame,
)
from grader.job import Job
from grader.results import CheckResult, CheckStatus, DeviceInfo, Stage

_STDERR_TAIL = 1500


class GradingStoppedError(Exception):
    """The grading was stopped from outside (`stop_gradings`): it has no verdict."""


_stopping = threading.Event()


def stop_gradings() -> None:
    """Stop every grading running in this process within a moment (Ctrl-C in a batch): each
    kills its child and raises GradingStoppedError, with no verdict, so that nothing half-graded is
    recorded."""
    _stopping.set()


def allow_gradings() -> None:
    """Let gradings run again after `stop_gradings`."""
    _stopping.clear()


@dataclass
class _ChildRun:
    device: DeviceInfo | None = None
    results: list[CheckResult] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)
    timed_out: bool = False
    out_of_memory: bool = False
    """Stopped for using more host memory than `memory_watch.limit_bytes()`."""
    limit: float = 0.0
    """The limit in force when the child stopped answering."""
    returncode: int | None = None
    stderr: str = ""
    bad_frame: str = ""
    """What the child sent that is not an event (then it is stopped)."""
    interrupted: bool = False
    """Stopped from outside (stop_gradings)."""
    reusable: bool = False
    """A serving child said it finished the job cleanly and can take another."""


def _read_tail(stream: IO[bytes]) -> str:
    stream.seek(0, os.SEEK_END)
    size = stream.tell()
    stream.seek(max(0, size - _STDERR_TAIL))
    return stream.read().decode("utf-8", "replace").strip()


_MEMORY_SAMPLE_S = 0.2
"""How often the child's memory is sampled."""

STARTUP_S = 60.0
"""Allowed for a child to start (Python, CuPy, the CUDA context) before its first event: no
student code runs before then, and a cold machine can take seconds."""


def _run_child(
    job: Job, time_limit: float, command: Sequence[str], progress: Progress
) -> _ChildRun:
    spawned = take(job.backend, job.env, command)
    run = _ChildRun(limit=time_limit)
    try:
        _watch_child(spawned, job, run, progress)
    finally:
        # whatever happened (an interrupt too): the child and everything its programs left are
        # killed, and its temporary files removed, unless it serves on, cleanly
        finished(spawned, run.reusable)
    return run


def _send(spawned: Spawned, job: Job) -> None:
    stdin = spawned.process.stdin
    assert stdin is not None
    text = json.dumps(job.to_json()).encode()
    try:
        if spawned.serving:  # job after job, each a frame
            stdin.write(frame(text))
            stdin.flush()
        else:
            stdin.write(text)
            stdin.close()
    except BrokenPipeError:
        pass


Progress = Callable[[str], None]
"""Told what the child runs next (a check, a case), as it starts: for a status line."""


def _watch_child(spawned: Spawned, job: Job, run: _ChildRun, progress: Progress) -> None:
    _send(spawned, job)
    done = _read_events(spawned, run, progress)
    if done is not None:  # a serving child finished the job: it has exited, or serves on
        run.returncode, run.reusable = done.code, done.reusable
        if not done.reusable:
            run.returncode = spawned.process.wait()
    else:
        if run.timed_out or run.out_of_memory or run.bad_frame or run.interrupted:
            _kill_group(spawned.process)
        run.returncode = spawned.process.wait()
    run.stderr = _read_tail(spawned.stderr)


def _read_events(spawned: Spawned, run: _ChildRun, progress: Progress) -> FinishedEvent | None:
    """Take the child's events into `run` until it finishes the job (a serving child's
    FinishedEvent, returned), closes its channel, or is to be stopped (a limit, a bad frame)."""
    time_limit = run.limit
    buffer = b""
    deadline = last_event = time.monotonic()
    deadline += time_limit + STARTUP_S
    memory_limit = memory_watch.limit_bytes()
    next_sample = last_event
    with selectors.DefaultSelector() as selector:
        selector.register(spawned.read_fd, selectors.EVENT_READ)
        while True:
            if _stopping.is_set():
                run.interrupted = True
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                run.timed_out = True
                return None
            ready = selector.select(timeout=min(remaining, _MEMORY_SAMPLE_S))
            if time.monotonic() >= next_sample:
                next_sample = time.monotonic() + _MEMORY_SAMPLE_S
                used = memory_watch.resident_bytes(
                    spawned.process.pid, spawned.scope.uid, max_age=_MEMORY_SAMPLE_S / 2
                )
                if used > memory_limit:
                    run.out_of_memory = True
                    return None
            if not ready:
                continue
            chunk = os.read(spawned.read_fd, 65536)
            if not chunk:
                return None
            try:
                events, buffer = decode(buffer + chunk)
            except BadFrameError as exc:  # what came before it in this read still counts
                run.bad_frame, events = str(exc), exc.events
            for event in events:
                if isinstance(event, FinishedEvent):
                    return event
                now = time.monotonic()
                _handle_event(event, run, now - last_event)
                last_event = now
                # The child knows what the next check costs on its backend (the CPU
                # emulator is far slower than a GPU) and may extend the limit for it.
                if isinstance(event, StartEvent):
                    progress(event.check)
                extra_s = event.extra_s if isinstance(event, StartEvent) else 0.0
                run.limit = time_limit + extra_s
                deadline = time.monotonic() + run.limit
            if run.bad_frame:
                return None


def _handle_event(event: Event, run: _ChildRun, seconds: float) -> None:
    if isinstance(event, DeviceEvent):
        run.device = event.device
    elif isinstance(event, StageEvent):
        run.stages.append(event.stage)
    elif isinstance(event, ResultEvent):
        # wall time since the child's previous event: the check's own cost as the user waits
        figures = {**event.result.figures, "wall_s": round(seconds, 3)}
        run.results.append(replace(event.result, figures=figures))


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _describe_exit(returncode: int | None, stderr: str) -> str:
    if returncode is not None and returncode < 0:
        how = f"was killed by signal {signal.Signals(-returncode).name}"
    else:
        how = f"exited with code {returncode}"
    last = stderr.splitlines()[-1] if stderr else ""
    return f"the grading process {how}" + (f": {last}" if last else "")


def run_isolated(
    job: Job,
    planned: Sequence[PlannedCheck],
    time_limit: float,
    command: Sequence[str] | None = None,
    progress: Progress = lambda what: None,
) -> tuple[DeviceInfo, list[CheckResult], list[Stage]]:
    """Run every planned check; returns the device, one result per planned check, in order, and
    the stages before the checks (builds) with their times. `progress` hears what starts."""
    command = list(command or worker_command())
    results: dict[str, CheckResult] = {}
    stages: list[Stage] = []
    device: DeviceInfo | None = None
    while len(results) < len(planned):
        failed = any(r.status in ("failed", "error") for r in results.values())
        job_now = replace(job, done=tuple(results), any_failed=failed)
        run = _run_child(job_now, time_limit, command, progress)
        if run.interrupted:
            raise GradingStoppedError("stopped before it finished")
        device = run.device or device
        stages += run.stages
        names = {p.name for p in planned}
        for result in run.results:
            if result.name in names:  # a name no check planned is not a result of this grading
                results.setdefault(result.name, result)
        pending = [p for p in planned if p.name not in results]
        if not pending:
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
            why = _describe_exit(run.returncode, run.stderr)
            if run.bad_frame:
                why = f"the grading process sent what is not an event ({run.bad_frame})"
            results[current.name] = _result(current, CheckStatus.ERROR, why, ("crash",))
    unknown = DeviceInfo(
        backend="none", name="unknown", detail="the grading process reported no device"
    )
    return device or unknown, [results[p.name] for p in planned], stages


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

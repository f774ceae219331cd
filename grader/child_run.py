"""One child process of a grading: the job sent, its events read under the time limit and
the memory limit, and the child killed (its whole process group) when it must stop; handed back
to the pool of serving children when it finished cleanly (grader/children.py)."""

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
from grader.children import Spawned, finished, take
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
from grader.results import CheckResult, DeviceInfo, Stage

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
class ChildRun:
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


def run_child(job: Job, time_limit: float, command: Sequence[str], progress: Progress) -> ChildRun:
    spawned = take(job.backend, job.env, command)
    run = ChildRun(limit=time_limit)
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


def _watch_child(spawned: Spawned, job: Job, run: ChildRun, progress: Progress) -> None:
    _send(spawned, job)
    done = _read_events(spawned, run, progress)
    if done is not None:  # a serving child finished the job: it serves on, or exits with
        # done.code once its results are out (the parent need not wait: children.finished ends it)
        run.returncode, run.reusable = done.code, done.reusable
    else:
        if run.timed_out or run.out_of_memory or run.bad_frame or run.interrupted:
            _kill_group(spawned.process)
        run.returncode = spawned.process.wait()
    run.stderr = _read_tail(spawned.stderr)


def _read_events(spawned: Spawned, run: ChildRun, progress: Progress) -> FinishedEvent | None:
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


def _handle_event(event: Event, run: ChildRun, seconds: float) -> None:
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


def describe_exit(returncode: int | None, stderr: str) -> str:
    if returncode is not None and returncode < 0:
        how = f"was killed by signal {signal.Signals(-returncode).name}"
    else:
        how = f"exited with code {returncode}"
    last = stderr.splitlines()[-1] if stderr else ""
    return f"the grading process {how}" + (f": {last}" if last else "")

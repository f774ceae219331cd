"""A grading child's hold on its batch lane (one GPU): shared while it checks correctness,
exclusive while it times, so that no two timed kernels (nor a timed kernel and anything else)
share a GPU; a timer that has waited long goes before correctness runs that come after it. fcntl
locks on files in the lane's directory: they hold across processes and vanish with a killed one.
Outside a batch lane every hold is a no-op."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from grader.events import StartEvent

LANE_ENV = "GRADER_LANE_DIR"
"""Set for a grading child: the directory of its lane's lock and log."""
LANE_WAIT_S = 1800.0
"""How long a grading may wait for its lane: waiting is not the kernel's time, and must not
count against the check's limit (the parent is told before the wait starts)."""


@contextmanager
def holding(
    kind: str,
    what: str,
    emit: Callable[[StartEvent], None] | None = None,
    extra_s: float = 0.0,
) -> Iterator[None]:
    """Hold this process's lane for `kind` ('shared' for correctness, 'exclusive' for timing)
    while the block runs; a no-op outside batch lanes. With `emit`, the parent's time limit is
    lifted while waiting for the lane, then set for `what` (with `extra_s`) once it is held."""
    directory = os.environ.get(LANE_ENV)
    if not directory:
        if emit is not None:
            emit(StartEvent(check=what, extra_s=extra_s))
        yield
        return
    exclusive = kind == "exclusive"
    with (Path(directory) / "lock").open("a") as lock, (Path(directory) / "gate").open("a") as gate:
        if emit is not None:
            emit(StartEvent(check=f"waiting for the lane: {what}", extra_s=LANE_WAIT_S))
        if exclusive:
            _take_for_timing(lock, gate)
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)
            fcntl.flock(lock, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        if emit is not None:
            emit(StartEvent(check=what, extra_s=extra_s))
        try:
            if exclusive:
                _log(Path(directory), f"start {what}")
            yield
            if exclusive:
                _log(Path(directory), f"end {what}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)


QUEUE_S = 30.0
"""How long a timer waits for the lane the plain way, taking it whenever no correctness run holds
it: in a batch of modest size the correctness runs finish first, in parallel, and the timings
follow one after another on a machine gone quiet (measured on the H200: 123 gradings a minute,
against 97 when timers went first from the start, their timing loops slowed by the CPU work
around them). Past it the timer closes the gate: no run waits for the lane without end."""
GATE_HOLD_S = 1.0
"""How long a timer then keeps new correctness runs out while it waits: longer than a correctness
run takes on a GPU (well under a second), so a holder still running past it is likely a kernel
that hangs until its time limit."""
GATE_OPEN_S = 2.0
"""How long the timer then lets correctness runs share the GPU with that holder before it closes
the gate again (a hanging kernel spoils timing anyway, not correctness)."""


def _take_for_timing(lock: IO[str], gate: IO[str]) -> None:
    """The lane, exclusively: taken when no correctness run holds it, within QUEUE_S; after
    that the timer closes the gate, and no new correctness run passes it until the timer has
    the lane, so that a stream of correctness runs cannot starve timers. A holder that stays
    longer than GATE_HOLD_S has the gate opened for GATE_OPEN_S, in turns."""
    if _within(lock, QUEUE_S):
        return
    while True:
        fcntl.flock(gate, fcntl.LOCK_EX)  # behind any other timer
        if _within(lock, GATE_HOLD_S):
            return
        fcntl.flock(gate, fcntl.LOCK_UN)
        if _within(lock, GATE_OPEN_S):
            return


def _within(lock: IO[str], seconds: float) -> bool:
    """Whether `lock` was taken exclusively within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        else:
            return True


def _log(directory: Path, text: str) -> None:
    with (directory / "timing.log").open("a") as log:
        log.write(f"{time.time():.6f} {os.getpid()} {text}\n")


def record_baseline(key: str, milliseconds: float) -> None:
    """Log the baseline's median from one timed grading on this lane (a no-op outside lanes):
    the baseline is re-measured, interleaved, with every submission, and the log shows whether
    the GPU's speed drifted over the batch."""
    directory = os.environ.get(LANE_ENV)
    if directory:
        with (Path(directory) / "baseline.log").open("a") as log:
            log.write(f"{time.time():.6f} {os.getpid()} {milliseconds:.6f} {key}\n")

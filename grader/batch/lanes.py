"""GPU lanes for batch grading: one lane per GPU given with --gpus. Gradings on a lane may run
their correctness checks together (a shared lock on the lane), but a timed measurement takes the
lane alone (an exclusive lock): never two timed kernels, nor a timed kernel and anything else, on
one GPU at once. Locks are fcntl locks on files in the output directory, so they hold across the
grading child processes and vanish with a killed one. Each lane logs when timing starts and ends."""

from __future__ import annotations

import fcntl
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LANE_ENV = "GRADER_LANE_DIR"
"""Set for a grading child: the directory of its lane's lock and log."""
LANE_WAIT_S = 1800.0
"""How long a grading may wait for its lane: waiting is not the kernel's time, and must not
count against the check's limit (the parent is told before the wait starts)."""


def lane_dir(out: Path, gpu: str) -> Path:
    path = out / "lanes" / f"gpu{gpu}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def child_env(out: Path, gpu: str) -> dict[str, str]:
    """What a grading child on this lane is started with: its one visible GPU and its lane."""
    return {"CUDA_VISIBLE_DEVICES": gpu, LANE_ENV: str(lane_dir(out, gpu))}


@contextmanager
def holding(
    kind: str,
    what: str,
    emit: Callable[[dict[str, Any]], None] | None = None,
    extra_s: float = 0.0,
) -> Iterator[None]:
    """Hold this process's lane for `kind` ('shared' for correctness, 'exclusive' for timing)
    while the block runs; a no-op outside batch lanes. With `emit`, the parent's time limit is
    lifted while waiting for the lane, then set for `what` (with `extra_s`) once it is held."""
    directory = os.environ.get(LANE_ENV)
    if not directory:
        if emit is not None:
            emit({"event": "start", "check": what, "extra_s": extra_s})
        yield
        return
    lock_path = Path(directory) / "lock"
    with lock_path.open("a") as lock:
        if emit is not None:
            emit(
                {"event": "start", "check": f"waiting for the lane: {what}", "extra_s": LANE_WAIT_S}
            )
        fcntl.flock(lock, fcntl.LOCK_EX if kind == "exclusive" else fcntl.LOCK_SH)
        if emit is not None:
            emit({"event": "start", "check": what, "extra_s": extra_s})
        try:
            if kind == "exclusive":
                _log(Path(directory), f"start {what}")
            yield
            if kind == "exclusive":
                _log(Path(directory), f"end {what}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _log(directory: Path, text: str) -> None:
    with (directory / "timing.log").open("a") as log:
        log.write(f"{time.time():.6f} {os.getpid()} {text}\n")


def overlaps(log: Path) -> list[str]:
    """Timing intervals in a lane's log that overlap (there must be none)."""
    open_since: dict[str, float] = {}
    problems = []
    for line in log.read_text().splitlines():
        stamp, pid, event, *_what = line.split()
        if event == "start":
            if open_since:
                problems.append(f"{pid} started at {stamp} while {sorted(open_since)} timed")
            open_since[pid] = float(stamp)
        else:
            open_since.pop(pid, None)
    return problems


DRIFT_WARNING = 0.03
"""A baseline whose medians on one lane spread wider than this is reported as drift."""


def record_baseline(key: str, milliseconds: float) -> None:
    """Log the baseline's median from one timed grading on this lane (a no-op outside lanes):
    the baseline is re-measured, interleaved, with every submission, and the log shows whether
    the GPU's speed drifted over the batch."""
    directory = os.environ.get(LANE_ENV)
    if directory:
        with (Path(directory) / "baseline.log").open("a") as log:
            log.write(f"{time.time():.6f} {os.getpid()} {milliseconds:.6f} {key}\n")


def baseline_drift(lane: Path) -> list[str]:
    """One line per baseline timed on this lane: how many times, its range and spread, and a
    warning where the spread is over DRIFT_WARNING."""
    log = lane / "baseline.log"
    if not log.is_file():
        return []
    times: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        _stamp, _pid, ms, key = line.split(maxsplit=3)
        times.setdefault(key, []).append(float(ms))
    lines = []
    for key, values in sorted(times.items()):
        low, high = min(values), max(values)
        spread = (high - low) / statistics.median(values)
        line = (
            f"{lane.name}: {key}: {len(values)} measurements, {low:.3f}-{high:.3f} ms "
            f"(spread {100 * spread:.1f}%)"
        )
        if spread > DRIFT_WARNING:
            line += (
                " - the GPU's speed drifted during the batch (clocks, heat, other work); each "
                "speedup is still fair (measured interleaved), but check the GPU"
            )
        lines.append(line)
    return lines

"""GPU lanes for batch grading, the parent's side: one lane per GPU given with --gpus, each a
directory in the output with its lock and logs (grader/lane_lock.py holds the lock in the
children); here, what a lane's child is started with, and what its logs say afterwards (timing
that overlapped, a baseline that drifted)."""

from __future__ import annotations

import statistics
from pathlib import Path

from grader.lane_lock import LANE_ENV


def lane_dir(out: Path, gpu: str) -> Path:
    path = out / "lanes" / f"gpu{gpu}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def child_env(out: Path, gpu: str) -> dict[str, str]:
    """What a grading child on this lane is started with: its one visible GPU and its lane."""
    return {"CUDA_VISIBLE_DEVICES": gpu, LANE_ENV: str(lane_dir(out, gpu))}


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

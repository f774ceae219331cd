"""The order `grader validate` starts its gradings in: longest first, by how long each took the
last time, files it has no time for first of all. A long grading started when the others are
nearly done leaves the other cores idle at the end (ex1's square_only.cu takes 15 s on the CPU
backend; most files take well under one). The times are kept in the build cache's folder; a
file of times that cannot be read or written only costs the order, never a verdict."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.program_cache import cache_dir, write_atomic


def _times_file() -> Path:
    return cache_dir() / "validate" / "durations.json"


def recorded() -> dict[str, float]:
    """Seconds each grading took the last time it ran, by key ({} when none are kept)."""
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(_times_file().read_text())
        if isinstance(data, dict):
            return {
                str(key): float(seconds)
                for key, seconds in data.items()
                if isinstance(seconds, int | float) and not isinstance(seconds, bool)
            }
    return {}


def longest_first(keys: Sequence[str], times: Mapping[str, float]) -> list[int]:
    """Indices of `keys` in the order to start them: the unknown ones first, then the others by
    their time, longest first; ties keep their given order."""
    return sorted(range(len(keys)), key=lambda i: -times.get(keys[i], float("inf")))


def record(times: Mapping[str, float]) -> None:
    """Keep these times, over what was kept for the same keys, for the next run's order."""
    with contextlib.suppress(OSError):
        merged = {**recorded(), **times}
        write_atomic(_times_file(), json.dumps(merged, indent=0, sort_keys=True).encode())

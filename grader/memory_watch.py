"""How much host memory a grading child and everything it started are using, read from /proc.

A kernel (or a compile of it: a macro or unrolling blow-up in NVRTC) that fills the machine's
memory would take down every other grading with it; the parent samples the child's process group
and stops it past a limit. Resident memory is what counts: CUDA reserves far more address space
than it uses, so an address-space limit (RLIMIT_AS) cannot be used on the GPU backend."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

LIMIT_ENV = "GRADER_MEMORY_MB"
DEFAULT_LIMIT_MB = 8192
_PAGE = os.sysconf("SC_PAGE_SIZE")


def limit_bytes() -> int:
    """The resident-memory limit of one grading (its whole process group), in bytes."""
    return int(os.environ.get(LIMIT_ENV, str(DEFAULT_LIMIT_MB))) * 1024 * 1024


@dataclass(frozen=True)
class _Table:
    """One read of /proc: pid -> (parent, group, resident bytes), and each pid's owner."""

    taken: float
    proc: Path
    rows: dict[int, tuple[int, int, int]]
    owners: dict[int, int]


_latest: _Table | None = None
_reading = threading.Lock()


def _read_table(proc: Path, max_age: float) -> _Table:
    """A read of /proc no older than `max_age` seconds: a batch's parent watches many children,
    and one read serves them all (each read opens every process's stat file)."""
    global _latest
    with _reading:
        latest = _latest
        if latest and latest.proc == proc and time.monotonic() - latest.taken <= max_age:
            return latest
        rows: dict[int, tuple[int, int, int]] = {}
        owners: dict[int, int] = {}
        for entry in proc.iterdir() if proc.is_dir() else ():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                owner = entry.stat().st_uid
            except OSError:  # the process ended, or is not ours to read
                continue
            # Fields after the command name (which may hold spaces and parentheses): state is
            # the first, the parent the second, the process group the third, resident pages
            # the 22nd.
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 21:
                pid = int(entry.name)
                rows[pid] = (int(fields[1]), int(fields[2]), int(fields[21]) * _PAGE)
                owners[pid] = owner
        _latest = _Table(time.monotonic(), proc, rows, owners)
        return _latest


def resident_bytes(
    child: int, uid: int | None = None, proc: Path = Path("/proc"), max_age: float = 0.0
) -> int:
    """Resident bytes of grading child `child` and everything it started: its process group,
    its descendants in sessions of their own (the sandbox starts one), and every process of
    the grading's sandbox user `uid` (reparented away from the child, say); 0 without /proc.
    Read from /proc at most `max_age` seconds ago."""
    table = _read_table(proc, max_age)
    rows, owners = table.rows, table.owners
    counted = {pid for pid, (_, group, _) in rows.items() if group == child or owners[pid] == uid}
    counted.add(child)
    grew = True
    while grew:  # descendants, whatever their session
        grown = {pid for pid, (parent, _, _) in rows.items() if parent in counted}
        grew = not grown <= counted
        counted |= grown
    return sum(rows[pid][2] for pid in counted if pid in rows)

"""The processes below a test's own, read from /proc (Linux)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from collections.abc import Iterator
from pathlib import Path


def _parents() -> dict[int, int]:
    """Every process's parent."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def command(pid: int) -> bytes:
    """The process's command line, NUL-separated (empty once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def descendants(root: int) -> list[int]:
    """The processes below `root`, its children first."""
    parents = _parents()
    found, frontier = [], [root]
    while frontier:
        below = [pid for pid, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def grading_children(grader: int) -> list[int]:
    """The grading children (`python -m grader.worker`) that `grader` started."""
    parents = _parents()
    return [
        p for p, parent in parents.items() if parent == grader and b"grader.worker" in command(p)
    ]


_PR_SET_CHILD_SUBREAPER = 36
_LEFT_BEHIND = ("bwrap", "program")
"""What a closed CPU program session leaves: bubblewrap's inner process, the program."""


@contextlib.contextmanager
def reaping_orphans() -> Iterator[None]:
    """This process adopts what its sandboxed programs leave behind, and reaps it on the way
    out. Inside bubblewrap a program's outer process dies with the session and its inner ones
    are left to the nearest reaper; where that is a PID 1 that reaps nothing (a container's),
    their zombies stay and count towards the user's process limit: a test worker that ran many
    programs under its own sandbox user ran out of processes (vfork: Resource temporarily
    unavailable in g++)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            adopted = [
                pid for pid, parent in _parents().items()
                if parent == os.getpid() and _name(pid) in _LEFT_BEHIND
            ]  # fmt: skip
            for pid in adopted:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            if not adopted:
                break
            time.sleep(0.01)


def _name(pid: int) -> str:
    """The process's command name (a zombie keeps it; its command line is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""

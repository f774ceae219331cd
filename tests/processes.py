"""The processes below a test's own, read from /proc (Linux)."""

from __future__ import annotations

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

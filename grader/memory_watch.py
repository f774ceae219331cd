"""How much host memory a grading child and everything it started are using, read from /proc.

A kernel (or a compile of it: a macro or unrolling blow-up in NVRTC) that fills the machine's
memory would take down every other grading with it; the parent samples the child's process group
and stops it past a limit. Resident memory is what counts: CUDA reserves far more address space
than it uses, so an address-space limit (RLIMIT_AS) cannot be used on the GPU backend."""

from __future__ import annotations

import os
from pathlib import Path

LIMIT_ENV = "GRADER_MEMORY_MB"
DEFAULT_LIMIT_MB = 8192
_PAGE = os.sysconf("SC_PAGE_SIZE")


def limit_bytes() -> int:
    """The resident-memory limit of one grading (its whole process group), in bytes."""
    return int(os.environ.get(LIMIT_ENV, str(DEFAULT_LIMIT_MB))) * 1024 * 1024


def group_resident_bytes(group: int, proc: Path = Path("/proc")) -> int:
    """Resident bytes of every process in process group `group` (0 where /proc is missing)."""
    total = 0
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended, or is not ours to read
            continue
        # Fields after the command name (which may hold spaces and parentheses): state is the
        # first, the process group the third, resident pages the 22nd.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 21 and int(fields[2]) == group:
            total += int(fields[21]) * _PAGE
    return total

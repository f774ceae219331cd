"""The sandbox's settings: the environment variables that steer it, the resource limits every
run of native student code gets, and the environment it runs with."""

from __future__ import annotations

import os

SANDBOX_ENV = "GRADER_SANDBOX"
"""`off`: run native code unisolated (--unsafe-no-sandbox). Anything else: isolation or nothing."""
HIDE_ENV = "GRADER_SANDBOX_HIDE"
"""Paths (os.pathsep-separated) the program must not see: solutions, submissions, results."""
BWRAP_ENV = "GRADER_BWRAP"
"""The bubblewrap to use (default: `bwrap` on the PATH); `none` to do without."""

CPU_SECONDS = 3600
"""The most CPU time any one run of native student code gets."""
FILE_BYTES = 256 * 1024 * 1024
"""The largest file a build may write (RLIMIT_FSIZE), and the size of its private /tmp."""
OUTPUT_BYTES = 16 * 1024 * 1024
"""The most a program may write to its stderr (a file of the grader's): sanitizer reports are
kilobytes; past this it gets SIGXFSZ."""
OPEN_FILES = 256
PROCESSES = 128
"""Processes and threads of one grading's user at a time (RLIMIT_NPROC, when run by root)."""
MEMORY_BYTES = 8 * 1024**3
"""Address space of an uninstrumented build (RLIMIT_AS): its fiber stacks are reserved, not used."""
MEMORY_ENV = "GRADER_CPU_MEMORY_MB"


def rss_limit_mb() -> int:
    """Resident memory allowed to a sanitizer build, which cannot live under RLIMIT_AS
    (AddressSanitizer reserves terabytes of shadow address space): its own watchdog enforces it."""
    return int(os.environ.get(MEMORY_ENV, "4096"))


def clean_env() -> dict[str, str]:
    """The environment native student code (and its build) gets: a search path and a locale,
    none of the grader's own variables (an instructor's secret, tokens, paths)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}


def unsafe() -> bool:
    return os.environ.get(SANDBOX_ENV) == "off"

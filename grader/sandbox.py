"""Running untrusted native code (the CPU backend's build of a student's kernel) in a sandbox:
bubblewrap (Debian's `bubblewrap`), with no network, a read-only view of /usr (programs and
libraries) and nothing else of the host's files (no /etc, /home, /root, /var, host /tmp, course
or submissions), a private /tmp, only its own work directory writable, and CPU-time, file-size
and (outside AddressSanitizer builds) memory limits.

Batch grading requires it (GRADER_SANDBOX=required in the grading children); `grader check` on
one's own code runs without it unless asked."""

from __future__ import annotations

import os
import resource
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.errors import GraderError

SANDBOX_ENV = "GRADER_SANDBOX"
"""`required`: refuse to run native student code without the sandbox."""
HIDE_ENV = "GRADER_SANDBOX_HIDE"
"""Paths (os.pathsep-separated) the sandboxed program must not see: solutions, submissions."""

CPU_SECONDS = 3600
"""The most CPU time any one run of native student code gets."""
FILE_BYTES = 256 * 1024 * 1024
MEMORY_BYTES = 8 * 1024**3
"""Address space of an uninstrumented build (RLIMIT_AS): its fiber stacks are reserved, not used."""
MEMORY_ENV = "GRADER_CPU_MEMORY_MB"


def rss_limit_mb() -> int:
    """Resident memory allowed to a sanitizer build, which cannot live under RLIMIT_AS
    (AddressSanitizer reserves terabytes of shadow address space): its own watchdog enforces it."""
    return int(os.environ.get(MEMORY_ENV, "4096"))


def available() -> str | None:
    """The bwrap binary when it can run here, else None."""
    path = shutil.which("bwrap")
    return path


def clean_env() -> dict[str, str]:
    """The environment native student code (and its build) gets: a search path and a locale,
    none of the grader's own variables (an instructor's secret, tokens, paths)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}


def required() -> bool:
    return os.environ.get(SANDBOX_ENV) == "required"


def wrap(command: Sequence[str], workdir: Path, readable: Sequence[Path] = ()) -> list[str]:
    """`command` inside bubblewrap; GraderError when the sandbox is required but missing."""
    bwrap = available()
    if bwrap is None:
        if required():
            raise GraderError(
                "the sandbox (bubblewrap) is required here but missing: apt-get install bubblewrap"
            )
        return list(command)
    hidden = [p for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p]
    args = [
        bwrap,
        *_system_view(),
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--bind",
        str(workdir),
        str(workdir),
        *[arg for path in readable for arg in ("--ro-bind", str(path), str(path))],
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
    ]
    for path in hidden:
        if Path(path).is_dir():
            args += ["--tmpfs", path]
    return [*args, *command]


_SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


def _system_view() -> list[str]:
    """What native code sees of the host: the programs and libraries under /usr (and the /lib,
    /bin links into it) and the loader's cache, read-only. Not /etc, /home, /root, /var, /opt,
    the host's /tmp, the course or any submission."""
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return [*args, "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]


def limits(memory: bool, cpu_seconds: float = CPU_SECONDS) -> Callable[[], None]:
    """A preexec function setting the child's CPU-time, file-size and memory limits (memory off
    for AddressSanitizer builds, which reserve terabytes of address space). Past `cpu_seconds`
    the program gets SIGXCPU, and SIGKILL a few seconds later if it ignores that."""
    soft = max(1, min(int(cpu_seconds + 0.999), CPU_SECONDS))

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))

    return apply

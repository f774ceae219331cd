"""Running untrusted native code (the CPU backend's builds and programs of a student's kernel)
isolated from the host and from the grader. Two ways, tried in this order:

- **bubblewrap**: a new user, mount, PID, network, IPC and UTS namespace; every capability
  dropped and no new user namespaces; a read-only view of /usr and nothing else of the host's
  files; a private, size-limited /tmp; only its own work directory, if any, writable. Run by
  root, bubblewrap itself is started as the grading's own unprivileged user (`identity`).
- **a user of its own** (root without bubblewrap, or where user namespaces are refused, as in
  Docker's default profile, and so on Gradescope): the program runs as the grading's
  unprivileged user, in a session of its own, killed with the grading.

Both add a seccomp filter (`seccomp`: no mounts, namespaces, tracing, sockets, ...), no new
privileges, resource limits (CPU time, file size, open files, processes, memory), and none of
the grader's environment. With neither available, grading of native code fails closed, unless
the user passes `--unsafe-no-sandbox` (their own code on their own machine)."""

from __future__ import annotations

from grader.sandbox.choice import Mode, describe, hidden, mode, readable_by_others
from grader.sandbox.launch import popen, run
from grader.sandbox.settings import (
    BWRAP_ENV,
    HIDE_ENV,
    MEMORY_ENV,
    OUTPUT_BYTES,
    PROCESSES,
    SANDBOX_ENV,
    clean_env,
    rss_limit_mb,
    unsafe,
)
from grader.sandbox.workdirs import private_workdir, remove, workdir

__all__ = [
    "BWRAP_ENV",
    "HIDE_ENV",
    "MEMORY_ENV",
    "OUTPUT_BYTES",
    "PROCESSES",
    "SANDBOX_ENV",
    "Mode",
    "clean_env",
    "describe",
    "hidden",
    "mode",
    "popen",
    "private_workdir",
    "readable_by_others",
    "remove",
    "rss_limit_mb",
    "run",
    "unsafe",
    "workdir",
]

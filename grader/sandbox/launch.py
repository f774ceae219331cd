"""Starting native student code isolated: bubblewrap, or as the grading's own user, with the
seccomp filter and resource limits; and running it to its end under a timeout."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from grader.sandbox import identity, seccomp
from grader.sandbox.bwrap import bwrap_command, drop_to
from grader.sandbox.choice import bwrap_path, mode
from grader.sandbox.settings import (
    CPU_SECONDS,
    FILE_BYTES,
    MEMORY_BYTES,
    OPEN_FILES,
    OUTPUT_BYTES,
    PROCESSES,
    clean_env,
)

_PR_SET_PDEATHSIG = 1
_CLONE_NEWNET = 0x40000000


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _limits(memory: bool, cpu_seconds: float, writes: bool) -> Callable[[], None]:
    soft = max(1, min(int(cpu_seconds + 0.999), CPU_SECONDS))
    file_bytes = FILE_BYTES if writes else OUTPUT_BYTES
    processes = identity.is_root()  # per user: the grading's own user when run by root

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if processes:
            resource.setrlimit(resource.RLIMIT_NPROC, (PROCESSES, PROCESSES))
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))

    return apply


def _as_own_user(uid: int, limits: Callable[[], None], writes: bool) -> Callable[[], None]:
    libc = _libc()
    rules = seccomp.loader(writes)

    def enter() -> None:
        limits()
        libc.unshare(_CLONE_NEWNET)  # no network where root may (outside Docker); else seccomp
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        rules.load()

    return enter


def popen(
    command: Sequence[str],
    work: Path,
    *,
    writable: bool = False,
    memory: bool = True,
    cpu_seconds: float = CPU_SECONDS,
    env: dict[str, str] | None = None,
    **options: Any,
) -> subprocess.Popen[Any]:
    """Start `command` isolated (see the module's text), in `work` (from `workdir`). Only when
    `writable` (a build) may it write files, in `work` and its private /tmp; a student's program
    may write none. Every file the command needs must be in `work` or /usr. GraderError when no
    isolation can be set up. Its stdin is /dev/null unless given: a serving grading child's own
    stdin is the pipe its next jobs come on (a red-team pass saw it open in g++)."""
    options.setdefault("stdin", subprocess.DEVNULL)
    chosen = mode()
    environment = env or clean_env()
    uid = identity.sandbox_uid()
    limits = _limits(memory, cpu_seconds, writable)
    if chosen == "none":
        return subprocess.Popen(
            list(command), cwd=work, env=environment, preexec_fn=limits,
            start_new_session=True, **options,
        )  # fmt: skip
    if chosen == "user":
        enter = _as_own_user(uid, limits, writable)
        return subprocess.Popen(
            list(command), cwd=work, env=environment, preexec_fn=enter, start_new_session=True,
            close_fds=True, **options,
        )  # fmt: skip
    bwrap = bwrap_path()
    assert bwrap is not None
    drop = drop_to(uid)

    def enter_bubblewrap() -> None:
        limits()
        if drop is not None:
            drop()

    with bwrap_command(bwrap, command, work, writable) as (argv, fds):
        return subprocess.Popen(
            argv, env=environment, preexec_fn=enter_bubblewrap, pass_fds=fds,
            start_new_session=True, **options,
        )  # fmt: skip


def run(
    command: Sequence[str],
    work: Path,
    *,
    timeout: float,
    writable: bool = False,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`command` isolated, to its end (killed past `timeout`: subprocess.TimeoutExpired);
    its output as text."""
    with popen(
        command, work, writable=writable, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, errors="replace",
    ) as process:  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _kill(process: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.kill()
    process.communicate()

"""Starting grading children: `python -m grader.worker FD BACKEND`, each in its own session, with
the environment it needs. Light on imports, so that `grader check` can start its child before it
reads the course (see prestart)."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from grader.sandbox import SANDBOX_ENV
from grader.sandbox.scope import Scope, open_scope


def worker_command() -> list[str]:
    return [sys.executable, "-m", "grader.worker"]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["CUPY_TF32"] = "0"  # cuBLAS, the performance report's yardstick, in true FP32
    return env


@dataclass
class Spawned:
    """A started child: its process, the read end of its event pipe, its stderr file, and the
    scope (temporary directory, sandbox user) to close once it has ended."""

    process: subprocess.Popen[bytes]
    read_fd: int
    stderr: IO[bytes]
    backend: str
    scope: Scope


_prestarted: list[Spawned] = []


def spawn(backend: str, env: dict[str, str], command: Sequence[str]) -> Spawned:
    """A grading child that imports what it needs and opens `backend` at once, then waits for
    its job on stdin."""
    full_env = {**_child_env(), **env}
    scope = open_scope(sandboxed=full_env.get(SANDBOX_ENV) != "off")
    read_fd, write_fd = os.pipe()
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by whoever runs the child
    try:
        process = subprocess.Popen(
            [*command, str(write_fd), backend],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            pass_fds=(write_fd,),
            start_new_session=True,
            env={**full_env, **scope.env},
        )
    except BaseException:
        scope.close()
        raise
    finally:
        os.close(write_fd)
    return Spawned(process, read_fd, stderr, backend, scope)


def prestart(backend: str) -> None:
    """Start the first grading child now, so that its start-up (about a second on a GPU: Python,
    CuPy, the CUDA context) overlaps the parent's own (loading the course, reading the kernel).
    The next grading with this backend and no extra environment takes it; unused, it ends when
    its stdin closes with the parent."""
    _prestarted.append(spawn(backend, {}, worker_command()))


@atexit.register
def _close_unused() -> None:
    for spawned in _prestarted:
        spawned.process.kill()
        spawned.process.wait()
        spawned.scope.close()


def take(backend: str, env: dict[str, str], command: Sequence[str]) -> Spawned:
    """A prestarted child that fits (same backend, no extra environment, the usual command),
    else a new one."""
    for spawned in _prestarted:
        usable = spawned.process.poll() is None and spawned.backend == backend
        if usable and not env and list(command) == worker_command():
            _prestarted.remove(spawned)
            return spawned
    return spawn(backend, env, command)

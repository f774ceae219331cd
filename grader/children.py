"""Starting grading children: `python -m grader.worker FD BACKEND`, each in its own session, with
the environment it needs. Light on imports, so that `grader check` can start its child before it
reads the course (see prestart)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from grader.sandbox import SANDBOX_ENV
from grader.sandbox.scope import Scope, open_scope

SERVE_FLAG = "--serve"
"""grader.worker's flag for a child that takes job after job."""


def worker_command() -> list[str]:
    return [sys.executable, "-m", "grader.worker"]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["CUPY_TF32"] = "0"  # cuBLAS, the performance report's yardstick, in true FP32
    # NumPy's BLAS (the CPU backend's float64 reference) on one thread: gradings run one per
    # core already, and OpenBLAS's idle threads spin; they took 14 % of a CPU batch's time
    env["OPENBLAS_NUM_THREADS"] = "1"
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
    env: dict[str, str] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    serving: bool = False
    """Started with --serve: takes job after job, each a frame on stdin (grader.worker)."""

    def close(self) -> None:
        """Kill the child and everything it started; remove its files."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        with contextlib.suppress(OSError):
            os.close(self.read_fd)
        self.stderr.close()
        self.scope.close()


_prestarted: list[Spawned] = []


def spawn(
    backend: str, env: dict[str, str], command: Sequence[str], *, serving: bool = False
) -> Spawned:
    """A grading child that imports what it needs and opens `backend` at once, then waits for
    its job on stdin (its jobs, `serving`)."""
    full_env = {**_child_env(), **env}
    scope = open_scope(sandboxed=full_env.get(SANDBOX_ENV) != "off")
    read_fd, write_fd = os.pipe()
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by whoever runs the child
    try:
        process = subprocess.Popen(
            [*command, str(write_fd), backend, *([SERVE_FLAG] if serving else [])],
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
    return Spawned(process, read_fd, stderr, backend, scope, dict(env), list(command), serving)


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
    """Inside `serving()` (with the usual command): an idle serving child of this backend and
    environment, else a new serving one. Otherwise a prestarted child that fits (same backend,
    no extra environment, the usual command), else a new one."""
    if _pool is not None:
        return _pool.take(backend, env, command)
    for spawned in _prestarted:
        usable = spawned.process.poll() is None and spawned.backend == backend
        if usable and not env and list(command) == worker_command():
            _prestarted.remove(spawned)
            return spawned
    return spawn(backend, env, command)


class _Pool:
    """Idle serving children, by backend, environment (a batch lane's GPU) and command; with
    `spares`, that many more kept started for each kind taken, so that a grading whose child
    died (a kernel that lost its CUDA context goes on in a fresh child, check after check)
    finds the next one started already. The child back from a job last is taken first; fresh
    ones after every other, the one started longest ago first."""

    def __init__(self, spares: int = 0) -> None:
        self._idle: list[Spawned] = []
        self._lock = threading.Lock()
        self._spares = spares
        self._retiring: list[threading.Thread] = []

    def take(self, backend: str, env: dict[str, str], command: Sequence[str]) -> Spawned:
        key = (backend, env, list(command))
        taken = None
        with self._lock:
            for spawned in reversed(self._idle):  # the last one back first: its caches are warm
                if (spawned.backend, spawned.env, spawned.command) == key:
                    self._idle.remove(spawned)
                    if spawned.process.poll() is None:
                        taken = spawned
                    else:
                        spawned.close()
                    break
            idle = sum((s.backend, s.env, s.command) == key for s in self._idle)
        taken = taken or spawn(backend, env, command, serving=True)
        for _ in range(self._spares - idle):
            self.put(spawn(backend, env, command, serving=True), fresh=True)
        return taken

    def put(self, spawned: Spawned, *, fresh: bool = False) -> None:
        """An idle child: one back from a job is taken next; a `fresh` one (just started, maybe
        still starting) after every other, so that the spares started longest ago go first."""
        with self._lock:
            if fresh:
                self._idle.insert(0, spawned)
            else:
                self._idle.append(spawned)

    def retire(self, spawned: Spawned) -> None:
        """End a child that cannot serve on, on a thread of its own: a child whose kernel broke
        its CUDA context exits through the driver's teardown of that context, which the
        grading's next check (in a fresh child) need not wait for. Its sandbox user stays taken
        until it has ended (the replacement gets another); `close` waits for them all."""
        thread = threading.Thread(target=spawned.close, name="grader-retire")
        thread.start()
        with self._lock:
            self._retiring = [t for t in self._retiring if t.is_alive()]
            self._retiring.append(thread)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            retiring, self._retiring = self._retiring, []
        try:
            for spawned in idle:
                spawned.close()
        finally:
            for thread in retiring:
                thread.join()


_pool: _Pool | None = None


@contextmanager
def serving(spares: int = 0) -> Iterator[None]:
    """Within the block, gradings reuse their children: a child that finished a job cleanly
    (grader.worker --serve) takes the next one of its backend and lane, keeping Python, CuPy and
    its CUDA context; one that could not is replaced by a fresh one, started at once. With
    `spares`, that many children more of each kind taken are kept started. Every child is
    ended when the block ends."""
    global _pool
    _pool = _Pool(spares)
    try:
        yield
    finally:
        pool, _pool = _pool, None
        pool.close()


def warm(backend: str, env: dict[str, str], count: int) -> None:
    """Inside `serving()`: start `count` serving children of this backend and environment now
    (the usual command), so that their start-up (Python, CuPy, a CUDA context: about a second
    each, longer side by side) passes while the parent still reads the submissions."""
    pool = _pool
    if pool is not None:
        for _ in range(count):
            pool.put(spawn(backend, env, worker_command(), serving=True), fresh=True)


def finished(spawned: Spawned, reusable: bool) -> None:
    """A child's job is over: a reusable serving child goes back to the pool, its scope emptied
    (nothing of the last submission stays on disk, nothing it started keeps running); any other
    is ended (inside `serving()` in the background, a fresh one started in its place). So is
    one whose sandbox user still has processes after the sweep (zombies the child itself would
    have to reap: they would fill the next submission's process limit); ending it hands them to
    the grader, which reaps them when the scope closes."""
    pool = _pool
    keep = reusable and spawned.serving and pool is not None and spawned.process.poll() is None
    if keep:
        spawned.scope.sweep()
        keep = spawned.scope.left_nothing()
    if keep and pool is not None:
        _empty(spawned.scope.tmp)
        spawned.stderr.seek(0)
        spawned.stderr.truncate()
        pool.put(spawned)
        return
    if spawned.serving and pool is not None:
        pool.retire(spawned)  # first: a replacement that cannot start leaves nothing running
        pool.put(spawn(spawned.backend, spawned.env, spawned.command, serving=True), fresh=True)
    else:
        spawned.close()


def _empty(directory: Path) -> None:
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)

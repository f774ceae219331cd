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

import contextlib
import ctypes
import os
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from grader import program_cache
from grader.errors import GraderError
from grader.sandbox import identity, seccomp

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

Mode = Literal["bubblewrap", "user", "none"]


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


def _bwrap_path() -> str | None:
    chosen = os.environ.get(BWRAP_ENV)
    if chosen == "none":
        return None
    return shutil.which(chosen or "bwrap")


@cache
def _probe_bubblewrap(bwrap: str, uid: int) -> str | None:
    """None when bubblewrap starts here with every option the sandbox uses, else why not."""
    with tempfile.TemporaryDirectory(prefix="grader-probe-") as work:
        if identity.is_root():
            os.chown(work, uid, uid)
        try:
            with _bwrap_command(bwrap, ["/bin/true"], Path(work), False) as (argv, fds):
                done = subprocess.run(
                    argv, capture_output=True, text=True, errors="replace", pass_fds=fds,
                    preexec_fn=_drop_to(uid), env=clean_env(), timeout=30, check=False,
                )  # fmt: skip
        except (OSError, subprocess.SubprocessError, GraderError) as exc:
            return str(exc)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return None


def mode(hidden_too: Sequence[Path] = ()) -> Mode:
    """How native code will be isolated here; GraderError when it cannot be (fails closed).
    `hidden_too`: paths the program must not read beyond GRADER_SANDBOX_HIDE's."""
    if unsafe():
        return "none"
    uid = identity.sandbox_uid()
    bwrap = _bwrap_path()
    why = _probe_bubblewrap(bwrap, uid) if bwrap else "bubblewrap is not installed"
    if why is None:
        return "bubblewrap"
    if identity.is_root():
        seccomp.program(writes=False)  # fails (GraderError) where libseccomp is missing
        _check_hidden(hidden_too)
        return "user"
    raise GraderError(
        f"no isolation for students' native code here: {why}, and only root can run it as a "
        "user of its own. Install bubblewrap (apt-get install bubblewrap), or run as root; "
        "--unsafe-no-sandbox runs it unisolated (only for your own code)"
    )


def hidden() -> list[Path]:
    return [Path(p) for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p]


def readable_by_others(path: Path) -> bool:
    """Whether a user with no relation to the file's owner and group (the sandbox's user) could
    reach `path`: every folder above it searchable by others, and it readable or searchable."""
    try:
        path = path.resolve(strict=True)
    except OSError:
        return False
    for folder in reversed(path.parents):
        if not folder.stat().st_mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o005)


def _check_hidden(hidden_too: Sequence[Path]) -> None:
    """Without bubblewrap the program sees the host's files as any user does: the solutions,
    the submissions, the results and the cache of compiled programs must not be readable by
    others, or nothing runs."""
    for path in [*hidden(), *hidden_too, program_cache.cache_dir()]:
        if readable_by_others(path):
            raise GraderError(
                f"{path}: readable by any user, so by students' programs here (no bubblewrap): "
                f"chmod o-rwx {path} (or a folder above it) and grade again"
            )


def describe() -> tuple[bool, str]:
    """Whether students' native code can run isolated here, and how (for `grader doctor`)."""
    try:
        chosen = mode()
    except GraderError as exc:
        return False, str(exc)
    if chosen == "none":
        return False, "off (--unsafe-no-sandbox): students' programs run unisolated"
    if chosen == "bubblewrap":
        who = "each grading's own unprivileged user" if identity.is_root() else "you"
        return True, f"bubblewrap and seccomp, as {who}"
    bwrap = _bwrap_path()
    why = _probe_bubblewrap(bwrap, identity.sandbox_uid()) if bwrap else "not installed"
    return True, f"seccomp, as each grading's own unprivileged user; no bubblewrap ({why})"


def available() -> str | None:
    """A description of the isolation in use here, or None when there is none."""
    try:
        chosen = mode()
    except GraderError:
        return None
    return None if chosen == "none" else chosen


def workdir(prefix: str) -> Path:
    """A new private directory that the sandboxed program (its user) owns; `remove` it after."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    if identity.is_root() and not unsafe():
        uid = identity.sandbox_uid()
        os.chown(path, uid, uid)
    return path


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def private_workdir(prefix: str) -> Iterator[Path]:
    path = workdir(prefix)
    try:
        yield path
    finally:
        remove(path)


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


@contextlib.contextmanager
def _bwrap_command(
    bwrap: str, command: Sequence[str], work: Path, writable: bool
) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    uid = identity.sandbox_uid()
    fd = seccomp.program_fd(writable)
    try:
        yield [
            bwrap,
            "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--disable-userns",
            "--uid", str(uid), "--gid", str(uid), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session",
            *_system_view(),
            "--dev", "/dev", "--proc", "/proc",
            "--size", str(FILE_BYTES), "--tmpfs", "/tmp",
            "--bind" if writable else "--ro-bind", str(work), str(work),
            "--chdir", str(work),
            "--seccomp", str(fd),
            *command,
        ], (fd,)  # fmt: skip
    finally:
        os.close(fd)


def _drop_to(uid: int) -> Callable[[], None] | None:
    """Between fork and exec, as root: become `uid` with no groups and no capabilities."""
    if not identity.is_root():
        return None

    def drop() -> None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return drop


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
    isolation can be set up."""
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
    bwrap = _bwrap_path()
    assert bwrap is not None
    drop = _drop_to(uid)

    def enter_bubblewrap() -> None:
        limits()
        if drop is not None:
            drop()

    with _bwrap_command(bwrap, command, work, writable) as (argv, fds):
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

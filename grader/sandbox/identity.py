"""Who native student code runs as, and what is left of it afterwards.

Run by root, the grader gives each grading a user id of its own from an unprivileged range that
no account uses (`GRADER_SANDBOX_UID_BASE`, by default 1,900,000,000; `setup.sh` names the first
one `grader-sandbox`): that user owns no file of the host, cannot signal or trace the grader, and
its process count is limited per grading. A slot is held with a lock for as long as the grading
runs, so parallel gradings never share a user. Run by anyone else, the grader can only use the
caller's own id (inside bubblewrap's user namespace)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError

UID_ENV = "GRADER_SANDBOX_UID"
"""The user id the grading child runs programs as (set by the grading parent, which holds its
slot)."""
BASE_ENV = "GRADER_SANDBOX_UID_BASE"
DEFAULT_BASE = 1_900_000_000
SLOTS = 256
_SLOT_DIRS = (Path("/run/grader-sandbox"), Path("/tmp/.grader-sandbox-slots"))
SHARED_WRITABLE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
"""Where a program without bubblewrap could leave files of its own."""


def is_root() -> bool:
    return os.geteuid() == 0


def base_uid() -> int:
    return int(os.environ.get(BASE_ENV, str(DEFAULT_BASE)))


@dataclass
class Slot:
    uid: int
    _lock: int

    def release(self) -> None:
        sweep(self.uid)
        with contextlib.suppress(OSError):
            os.close(self._lock)


def _slot_dir() -> Path:
    for directory in _SLOT_DIRS:
        with contextlib.suppress(OSError):
            directory.mkdir(mode=0o700, exist_ok=True)
            info = directory.lstat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o077:
                return directory
    raise GraderError(
        f"no private place for the sandbox's locks: {_SLOT_DIRS[0]} and {_SLOT_DIRS[1]} must be "
        "root's own directories (mode 0700)"
    )


def acquire() -> Slot:
    """A user id no other grading is using now (root only)."""
    directory = _slot_dir()
    for index in range(SLOTS):
        fd = os.open(directory / f"slot-{index}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        uid = base_uid() + index
        sweep(uid)  # whatever an earlier grading killed with its parent left
        if processes_of(uid, zombies=True):  # zombies nobody reaps: they hold its process limit
            os.close(fd)
            continue
        return Slot(uid, fd)
    raise GraderError(f"all {SLOTS} sandbox users are busy: fewer gradings at a time")


_own: Slot | None = None
_own_lock = threading.Lock()


def sandbox_uid() -> int:
    """The user id programs run as: the grading's slot (root), else the caller's own."""
    global _own
    if not is_root():
        return os.getuid()
    given = os.environ.get(UID_ENV)
    if given:
        return int(given)
    with _own_lock:  # a process that grades on its own (tests, tools): a slot for its lifetime
        if _own is None:
            _own = acquire()
        return _own.uid


def processes_of(uid: int, proc: Path = Path("/proc"), zombies: bool = False) -> list[int]:
    """The processes of `uid`: live ones, and zombies too when asked (they hold nothing but
    their exit status until whoever inherited them reaps them, yet count towards the user's
    process limit)."""
    pids = []
    for entry in proc.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid != uid:
                    continue
                stat_line = (entry / "stat").read_text()
                state = stat_line[stat_line.rfind(")") + 2 :][:1]
                if zombies or state not in ("Z", "X"):
                    pids.append(int(entry.name))
    return pids


def _reap_adopted(uid: int) -> None:
    """Reap the zombies of `uid` this process adopted as a subreaper (see scope.open_scope)."""
    for pid in processes_of(uid, zombies=True):
        with contextlib.suppress(OSError):
            stat_line = (Path("/proc") / str(pid) / "stat").read_text()
            if int(stat_line[stat_line.rfind(")") + 2 :].split()[1]) == os.getpid():
                os.waitpid(pid, os.WNOHANG)


def _kill_all(uid: int) -> None:
    """kill(-1) as `uid`: every process of that user at once (a fork bomb cannot outrun it), and
    none of anyone else's."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only makes three system calls
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def sweep(uid: int) -> None:
    """Kill every process of `uid` and remove what it left in the host's shared writable
    directories (root only; a no-op for the caller's own id)."""
    if not is_root() or uid < base_uid():
        return
    # A fork bomb may start new ones while they are being killed. The first kill is made
    # whatever /proc shows: a process whose first thread has exited looks like a zombie there
    # while its other threads run on (a red-team pass kept one alive past its grading so).
    for attempt in range(20):
        if attempt and not processes_of(uid):
            break
        _kill_all(uid)
    _reap_adopted(uid)
    for directory in SHARED_WRITABLE:
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != uid:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)

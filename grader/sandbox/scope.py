"""What one grading child owns and leaves behind: a temporary directory of its own (its TMPDIR:
every build and program directory is made under it) and, run by root, the sandbox user its
programs run as. Closing the scope kills whatever of that user is still running and removes the
directory, however the child ended (a time limit's SIGKILL runs none of the child's own
clean-up); a grader that was itself killed leaves directories that the next one removes."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.sandbox import identity
from grader.sandbox.choice import others_can

PREFIX = "grader-run-"
_OWNER = re.compile(rf"^{PREFIX}(\d+)-")


@dataclass
class Scope:
    tmp: Path
    slot: identity.Slot | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def uid(self) -> int | None:
        return self.slot.uid if self.slot else None

    def sweep(self) -> None:
        """Kill every process the child's programs left (root only)."""
        if self.slot is not None:
            identity.sweep(self.slot.uid)

    def left_nothing(self) -> bool:
        """Whether the sandbox's user has no process left, zombies included: a program can make
        the grading child the parent of processes (clone with CLONE_PARENT) that nobody reaps
        while that child lives, and they hold the user's process limit."""
        return self.slot is None or not identity.processes_of(self.slot.uid, zombies=True)

    def close(self) -> None:
        try:
            if self.slot is not None:
                self.slot.release()
                self.slot = None
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def base() -> Path:
    """Where scopes are made: the temporary directory, unless the sandbox's user could not
    reach it (a TMPDIR inside root's home, say), then /tmp."""
    chosen = Path(tempfile.gettempdir())
    if identity.is_root() and not others_can(chosen, 0o001):
        return Path("/tmp")
    return chosen


def reap(directory: Path | None = None) -> list[Path]:
    """Remove the scopes of graders that are no longer running; the paths removed."""
    removed = []
    for root in {directory} if directory else {Path(tempfile.gettempdir()), base()}:
        with contextlib.suppress(OSError), os.scandir(root) as entries:
            for entry in entries:
                owner = _OWNER.match(entry.name)
                if owner and entry.is_dir(follow_symlinks=False) and not _alive(int(owner[1])):
                    shutil.rmtree(entry.path, ignore_errors=True)
                    removed.append(Path(entry.path))
    return removed


_PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> None:
    """Become the parent of whatever the scope's programs leave orphaned (a killed sandbox's
    processes), so that their zombies are reaped here (identity.sweep) rather than left to an
    init that may never reap them (a container's first process, say): zombies count towards
    the sandbox user's process limit."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1)


def open_scope(sandboxed: bool) -> Scope:
    """A new scope; a sandbox user of its own when `sandboxed` and run by root."""
    reap()
    _adopt_orphans()
    tmp = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base()))
    tmp.chmod(0o711)  # the sandbox user reaches its own directories inside, lists nothing
    scope = Scope(tmp, env={"TMPDIR": str(tmp)})
    if sandboxed and identity.is_root():
        try:
            scope.slot = identity.acquire()
        except BaseException:
            scope.close()
            raise
        scope.env[identity.UID_ENV] = str(scope.slot.uid)
    return scope

"""The bubblewrap command line: what a sandboxed program sees of the host, its namespaces, its
user and its seccomp filter; and how a child drops from root to the grading's user."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from grader.sandbox import identity, seccomp
from grader.sandbox.settings import FILE_BYTES

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
def bwrap_command(
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


def drop_to(uid: int) -> Callable[[], None] | None:
    """Between fork and exec, as root: become `uid` with no groups and no capabilities."""
    if not identity.is_root():
        return None

    def drop() -> None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return drop

"""Reading a file a user named, without trusting it to be one: a FIFO would block the grader
forever, /dev/zero (or a link to it) would fill its memory, and a link could show a student's
feedback a file of the instructor's. So a link is never followed, nothing but a regular file is
opened for reading, and never more than a limit is read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from grader.errors import GraderError

_KINDS = {
    stat.S_IFDIR: "is a directory, expected a file",
    stat.S_IFLNK: "a symbolic link; hand in the file itself, not a link",
    stat.S_IFIFO: "not a regular file (a pipe)",
    stat.S_IFCHR: "not a regular file (a device)",
    stat.S_IFBLK: "not a regular file (a device)",
    stat.S_IFSOCK: "not a regular file (a socket)",
}


def not_regular(mode: int) -> str | None:
    """Why a file of `mode` (from lstat) is not read, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def read_bounded(
    path: Path, limit: int, shown: str | Path | None = None, *, follow_links: bool = False
) -> bytes:
    """The bytes of regular file `path`, at most `limit` of them. FileNotFoundError passes
    through (callers decide whether a missing file matters); everything else that makes the
    file unusable (a link, unless `follow_links`; a directory, pipe, device or socket; more
    than `limit` bytes) is a GraderError naming it as `shown` (default: the path).

    The file is checked with lstat before it is opened (opening a device can do things), and
    opened with O_NOFOLLOW | O_NONBLOCK then checked again with fstat, so that swapping it for
    a link or a FIFO in between makes it refused, not followed or waited on."""
    name = path if shown is None else shown
    try:
        mode = (os.stat if follow_links else os.lstat)(path).st_mode
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise GraderError(f"{name}: cannot read: {exc.strerror}") from None
    why = not_regular(mode)
    if why:
        raise GraderError(f"{name}: {why}")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise GraderError(f"{name}: {_KINDS[stat.S_IFLNK]}") from None
        raise GraderError(f"{name}: cannot read: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "rb") as file:
            why = not_regular(os.fstat(file.fileno()).st_mode)
            if why:
                raise GraderError(f"{name}: {why}")
            data = file.read(limit + 1)
    except OSError as exc:
        raise GraderError(f"{name}: cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise GraderError(f"{name}: over the limit of {limit:,} bytes")
    return data

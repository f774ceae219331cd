"""Reading a file a user named, without trusting it to be one: a FIFO would block the grader
forever and /dev/zero would fill its memory, so only regular files are read, and never more
than a limit."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grader.errors import GraderError


def read_bounded(path: Path, limit: int, shown: str | Path | None = None) -> bytes:
    """The bytes of regular file `path`, at most `limit` of them. FileNotFoundError passes
    through (callers decide whether a missing file matters); everything else that makes the
    file unusable is a GraderError naming it as `shown` (default: the path)."""
    name = path if shown is None else shown
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise GraderError(f"{name}: cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise GraderError(f"{name}: is a directory, expected a file")
    if not stat.S_ISREG(mode):
        raise GraderError(f"{name}: not a regular file (a device, pipe or socket)")
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise GraderError(f"{name}: cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise GraderError(f"{name}: over the limit of {limit:,} bytes")
    return data

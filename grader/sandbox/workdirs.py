"""Work directories for sandboxed builds and programs: private, owned by the grading's user."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from grader.sandbox import identity
from grader.sandbox.settings import unsafe


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

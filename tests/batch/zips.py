"""Zips and kernels for the batch tests."""

from __future__ import annotations

import zipfile
from pathlib import Path

from tests.conftest import ROOT

GOOD = (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_bytes()


def write_zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip at `path` holding `members` (name: bytes)."""
    with zipfile.ZipFile(path, "w", method) as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return path

"""The build cache: NVRTC cubins and the CPU backend's programs, each stored under a hash of
what was compiled (never a path), capped in size, least recently used evicted first.

A hit refreshes an entry's modification time, which is what "recently used" means here. Entries
used in the last few minutes are never evicted, so a program another grading is about to run
stays in place even when the cache is over its cap."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

LIMIT_ENV = "GRADER_CACHE_MB"
DEFAULT_LIMIT_MB = 2048
IN_USE_S = 600.0
"""Entries used this recently are kept even over the cap."""


def cache_dir() -> Path:
    configured = os.environ.get("GRADER_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-grader" / "kernels"


def make_private(directory: Path) -> None:
    """Create `directory` (a folder of the cache) and, where the cache itself is new, make it
    the grader's own (mode 0700): it holds every student's compiled programs, which a program
    run without bubblewrap, as another user, could otherwise read."""
    root = cache_dir()
    if not root.exists():
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    directory.mkdir(parents=True, exist_ok=True)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file of the cache whole or not at all: a reader never sees half of it."""
    make_private(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def limit_bytes() -> int:
    text = os.environ.get(LIMIT_ENV, "")
    megabytes = int(text) if text.isdigit() else DEFAULT_LIMIT_MB
    return megabytes * 1024 * 1024


def touch(*paths: Path) -> None:
    """Mark entries as just used (a hit)."""
    now = time.time()
    for path in paths:
        with contextlib.suppress(OSError):
            os.utime(path, (now, now))


@dataclass(frozen=True)
class CacheStats:
    directory: Path
    entries: int
    cpu_programs: int
    total_bytes: int
    limit_bytes: int


def _entries(directory: Path) -> list[tuple[float, int, Path]]:
    """(last use, size, path) of every regular file in the cache, temporary files included."""
    found: list[tuple[float, int, Path]] = []
    if not directory.is_dir():
        return found
    for root, _, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            with contextlib.suppress(OSError):
                status = path.lstat()
                found.append((status.st_mtime, status.st_size, path))
    return found


def stats() -> CacheStats:
    directory = cache_dir()
    entries = _entries(directory)
    programs = sum(1 for _, _, path in entries if path.parent.name == "cpu")
    return CacheStats(
        directory=directory,
        entries=len(entries),
        cpu_programs=programs,
        total_bytes=sum(size for _, size, _ in entries),
        limit_bytes=limit_bytes(),
    )


def evict(limit: int | None = None) -> int:
    """Remove least recently used entries until the cache fits `limit` bytes (default: the cap);
    entries used in the last IN_USE_S seconds stay. Returns how many files were removed."""
    limit = limit_bytes() if limit is None else limit
    entries = sorted(_entries(cache_dir()))
    total = sum(size for _, size, _ in entries)
    removed = 0
    cutoff = time.time() - IN_USE_S
    for used, size, path in entries:
        if total <= limit or used > cutoff:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size
            removed += 1
    return removed


def clear() -> int:
    """Remove every entry; returns how many files were removed."""
    removed = 0
    for _, _, path in _entries(cache_dir()):
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed

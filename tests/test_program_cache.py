"""The build cache stays under its cap, evicting the least recently used builds first, never
one used moments ago; `grader cache` shows and clears it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from grader import program_cache
from tests.conftest import run_grader


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache" / "cpu").mkdir(parents=True)
    return tmp_path / "cache"


def _entry(path: Path, size: int, used_hours_ago: float) -> Path:
    path.write_bytes(b"x" * size)
    when = time.time() - used_hours_ago * 3600
    os.utime(path, (when, when))
    return path


def test_eviction_removes_the_least_recently_used_first(cache: Path) -> None:
    oldest = _entry(cache / "cpu" / "a", 1000, used_hours_ago=3)
    older = _entry(cache / "b.cubin", 1000, used_hours_ago=2)
    recent = _entry(cache / "cpu" / "c", 1000, used_hours_ago=1)
    assert program_cache.evict(limit=2000) == 1
    assert not oldest.exists() and older.exists() and recent.exists()
    program_cache.touch(older)  # a hit makes it the most recently used
    assert program_cache.evict(limit=1000) == 1
    assert older.exists() and not recent.exists()


def test_entries_used_moments_ago_stay_even_over_the_cap(cache: Path) -> None:
    busy = _entry(cache / "cpu" / "busy", 5000, used_hours_ago=0)
    assert program_cache.evict(limit=10) == 0
    assert busy.exists()


def test_the_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(program_cache.LIMIT_ENV, "3")
    assert program_cache.limit_bytes() == 3 * 1024 * 1024
    monkeypatch.setenv(program_cache.LIMIT_ENV, "lots")
    assert program_cache.limit_bytes() == program_cache.DEFAULT_LIMIT_MB * 1024 * 1024


def test_grader_cache_shows_then_clears(cache: Path) -> None:
    _entry(cache / "cpu" / "program", 2048, used_hours_ago=1)
    _entry(cache / "k.cubin", 1024, used_hours_ago=1)
    shown = run_grader(["cache"])
    assert shown.returncode == 0, shown.stderr
    assert str(cache) in shown.stdout and "2 file(s), 1 of them CPU programs" in shown.stdout
    cleared = run_grader(["cache", "clear"])
    assert cleared.returncode == 0 and "removed 2 file(s)" in cleared.stdout
    assert not any(p.is_file() for p in cache.rglob("*"))

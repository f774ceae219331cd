"""Verdicts on a loaded machine: with every core busy with other work, each reference solution
still passes on the CPU backend (no check's limit measures the machine instead of the kernel),
and a kernel that never finishes still fails, within a bounded time, with the reason."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.course import load_course
from grader.grading import grade
from grader.source import read_source
from tests.conftest import ROOT, alone

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

# one worker runs them all, one after another, under the same busy loops (pytest -n)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("loaded_machine")]
COURSE = load_course(ROOT)


@pytest.fixture(scope="module")
def busy_cores() -> Iterator[int]:
    """One busy loop per core, for the whole module, with no other test running meanwhile."""
    count = os.cpu_count() or 2
    with alone():
        loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
        try:
            yield count
        finally:
            for loop in loops:
                loop.kill()
                loop.wait()


@pytest.mark.parametrize("exercise_id", [e.id for e in COURSE.exercises])
def test_every_solution_passes_with_every_core_busy(busy_cores: int, exercise_id: str) -> None:
    exercise = COURSE.find(exercise_id)
    solution = exercise.solution
    answers = solution.parent / exercise.spec.answers.file if exercise.spec.answers else None
    report = grade(exercise, read_source(solution), seed=7, backend="cpu", answers=answers)
    failed = [f"{c.name}: {c.message}" for c in report.checks if c.status in ("failed", "error")]
    assert report.passed, failed


def test_a_kernel_that_never_finishes_fails_in_bounded_time_with_every_core_busy(
    busy_cores: int,
) -> None:
    exercise = COURSE.find("ex1")
    variant = exercise.solution.parent / "wrong" / "endless_loop.cu"
    started = time.monotonic()
    report = grade(exercise, read_source(variant), seed=7, backend="cpu")
    elapsed = time.monotonic() - started
    first = next(c for c in report.checks if c.status != "passed")
    assert first.status == "failed" and "timeout" in first.symptoms
    assert "CPU-time limit" in first.message and "endless loop" in first.message
    assert elapsed < 300, f"took {elapsed:.0f} s to stop a hanging kernel"

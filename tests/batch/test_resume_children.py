"""A batch starts its grading children while it reads the submissions; a folder graded before
(--resume) starts them only once it knows that something is left to grade: a resume of a
finished batch starts none (on a GPU lane each costs a CUDA context)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from grader.commands import batch
from grader.course import load_course
from tests.conftest import ROOT, run_grader

SOLUTION = ROOT / "solutions/ex4-register-tiling/kernel.cu"


class _ChildrenStartedError(Exception):
    """Raised by the stand-in for lane_children: the batch started its children."""


@contextmanager
def _refuse_children(*args: object) -> Iterator[None]:
    raise _ChildrenStartedError
    yield


def _resume(course: Path, submissions: Path, out: Path) -> int:
    return batch.run(
        course=load_course(course), submissions=submissions, out=out, exercises=["ex4"],
        backend="cpu", resume=True, seed=1,
    )  # fmt: skip


def test_a_resume_starts_grading_children_only_when_something_is_left(
    small_course: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    (submissions / "ada").mkdir(parents=True)
    (submissions / "ada" / "kernel.cu").write_bytes(SOLUTION.read_bytes())
    first = run_grader(
        ["--course", str(small_course), "batch", str(submissions), "--out", str(out),
         "--exercise", "ex4", "--backend", "cpu", "--seed", "1"]
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    monkeypatch.setattr("grader.commands.batch.lane_children", _refuse_children)
    assert _resume(small_course, submissions, out) == 0  # nothing left: no child started
    # a new student is something left to grade: the children start
    (submissions / "ben").mkdir()
    (submissions / "ben" / "kernel.cu").write_bytes(SOLUTION.read_bytes())
    with pytest.raises(_ChildrenStartedError):
        _resume(small_course, submissions, out)

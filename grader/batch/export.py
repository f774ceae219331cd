"""A student's hand-in as one zip (`grader export`): each exercise's kernel.cu and answers file
in its exercise directory, the layout batch grading and Gradescope read; then read back exactly
as they will read it, so that what is found is known before it is uploaded."""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from grader.batch.discover import discover
from grader.batch.student_folder import Submission
from grader.checks.answers_file import load_for
from grader.checks.explanation import is_template_question
from grader.course import Exercise
from grader.errors import GraderError


@dataclass(frozen=True)
class Exported:
    """What the zip holds for one exercise, as a batch reads it back."""

    exercise: str
    files: tuple[str, ...]
    """Inside the zip."""
    found: bool
    """Whether a batch finds the exercise's kernel in the zip."""
    problem: str
    """Why it cannot be graded, or what is missing ('' when nothing)."""


def export(exercises: Sequence[Exercise], target: Path) -> list[Exported]:
    """Write the zip at `target` (never over an existing file), then read it back as a batch."""
    if os.path.lexists(target):  # a dangling link too: nothing is written through one
        raise GraderError(f"{target} exists: choose another name, nothing was written")
    if target.suffix != ".zip":
        raise GraderError(f"{target}: the hand-in must be a .zip")
    if not target.parent.is_dir():
        raise GraderError(f"{target}: no folder {target.parent} to write it in")
    try:
        written = _write(exercises, target)
    except OSError as exc:
        raise GraderError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    return _read_back(target, exercises, written)


def _write(exercises: Sequence[Exercise], target: Path) -> dict[str, list[str]]:
    written: dict[str, list[str]] = {}
    with zipfile.ZipFile(target, "x", zipfile.ZIP_DEFLATED) as zipped:
        for exercise in exercises:
            names = [exercise.spec.kernel.file]
            if exercise.spec.answers is not None:
                names.append(exercise.spec.answers.file)
            written[exercise.id] = []
            for name in names:
                path = exercise.directory / name
                if path.is_file() and not path.is_symlink():
                    member = f"{exercise.dir_name}/{name}"
                    zipped.write(path, member)
                    written[exercise.id].append(member)
    return written


def _read_back(
    target: Path, exercises: Sequence[Exercise], written: dict[str, list[str]]
) -> list[Exported]:
    with tempfile.TemporaryDirectory(prefix="grader-export-") as scratch:
        submissions = Path(scratch) / "submissions"
        submissions.mkdir()
        (submissions / "student.zip").write_bytes(target.read_bytes())
        found, _notes = discover(submissions, exercises, Path(scratch) / "work")
        out = []
        for submission in found:
            out.append(
                Exported(
                    submission.exercise.id,
                    tuple(written.get(submission.exercise.id, ())),
                    submission.kernel is not None and submission.error is None,
                    _problem(submission),
                )
            )
        return out


def _problem(submission: Submission) -> str:
    """Why it cannot be graded, else what will score 0 or looks unfinished ('' where nothing)."""
    exercise = submission.exercise
    if submission.error:
        return submission.error
    if submission.kernel is None:
        return f"no {exercise.spec.kernel.file}: nothing to grade"
    problems = [_todo_left(submission.kernel, exercise.spec.kernel.file)]
    if exercise.spec.answers is not None:
        problems.append(_answers_problem(exercise, submission.answers))
    return "; ".join(p for p in problems if p)


def _answers_problem(exercise: Exercise, path: Path | None) -> str:
    """What grading will find wrong with the answers file, as it reads it ('' where nothing):
    absent, not YAML, a value of the wrong type (each with its line), the explanation left as
    the template's question."""
    spec = exercise.spec.answers
    assert spec is not None
    if path is None or not path.is_file():
        return f"no {spec.file}: its questions will score 0"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return f"{spec.file}: not UTF-8 text: its questions will score 0"
    loaded = load_for(spec, text)
    if isinstance(loaded, str):
        return f"{loaded}: its questions will score 0"
    problems = list(loaded.problems.values())
    # nulls as the file has them: a value of the wrong type is its own problem, said above
    written = yaml.safe_load(text)
    blank = _unanswered(written) if isinstance(written, dict) else []
    if blank:
        more = f" and {len(blank) - 3} more" if len(blank) > 3 else ""
        problems.append(f"not answered (null): {', '.join(blank[:3])}{more}")
    given = str(getattr(loaded.answers, "explanation", ""))
    if is_template_question(given, spec.review):
        problems.append("the explanation is still the template's question: it will score 0")
    return "; ".join(problems)


def _todo_left(kernel: Path, shown_as: str) -> str:
    """Where the kernel still says TODO, as the stubs do where the work is to be done ('' where
    it does not)."""
    try:
        lines = kernel.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    todo = [n for n, line in enumerate(lines, 1) if "TODO" in line]
    if not todo:
        return ""
    where = ", ".join(str(n) for n in todo[:3]) + (" ..." if len(todo) > 3 else "")
    lines_word = "line" if len(todo) == 1 else "lines"
    return f"{shown_as} still says TODO ({lines_word} {where}): is the stub's work done?"


def _unanswered(answers: dict[Any, Any], prefix: str = "", depth: int = 0) -> list[str]:
    """The keys (dotted, as in the file) whose value is still null, as the template has them
    (the templates nest three deep at most)."""
    blank = []
    for key, value in answers.items():
        if isinstance(value, dict) and depth < 3:
            blank += _unanswered(value, f"{prefix}{key}.", depth + 1)
        elif value is None:
            blank.append(f"{prefix}{key}")
    return blank

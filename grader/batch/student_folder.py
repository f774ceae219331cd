"""One student's folder (or extracted zip): a Submission per exercise, and a note on what was
found there and what was not read, and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.kernel_files import find_kernel
from grader.batch.layouts import unread, unwrapped
from grader.batch.names import display
from grader.batch.submitters import Submitter
from grader.course import Exercise
from grader.notebook import marked_exercises


@dataclass(frozen=True)
class Submission:
    """One student's work for one exercise."""

    student: str
    """The key, unique in the batch and stable between runs: the folder's or the zip's name (the
    zip's whole name where its stem is taken), or a Gradescope export's submission folder."""
    exercise: Exercise
    kernel: Path | None
    """None when the student handed in nothing for this exercise."""
    answers: Path | None
    layout: str
    error: str | None = None
    """Why this cannot be graded (a refused zip; a link, pipe or device where the kernel should
    be): recorded as its result, 0 points, with this one-line reason."""
    submitters: tuple[Submitter, ...] = ()
    """Everyone who made it, where an export says (each member of a group); else empty."""
    submitted_at: float | None = None
    """When it was handed in (seconds since the epoch): as a Gradescope export records it, else
    the last change to its files or to the zip it came in; None where that cannot be read."""
    time_source: str = ""
    """`export` (the platform's record) or `files` (modification times, which a download or a
    copy may have reset: the gradebook uses them only when told to)."""
    unread: bool = False
    """Nothing found for the exercise, but the hand-in holds a kernel that was not read (which
    exercise it is for is not guessed): not proof that the exercise was dropped, so an earlier
    result of it is not set aside."""


def read_folder(
    folder: Path,
    key: str,
    exercises: Sequence[Exercise],
    layout: str,
    others: Sequence[Exercise],
    graded_too: Sequence[str] = (),
) -> tuple[list[Submission], str]:
    """A student's folder (or extracted zip): their submissions, and a note saying what was
    found and which kernels were not read, and why."""
    placed = {f"{d}/{e.spec.kernel.file}" for e in others for d in (e.dir_name, e.id)}
    mine = in_folder(folder, key, exercises, layout, (), others, lone=not graded_too)
    why = ""
    if graded_too and len(exercises) == 1:
        why = (
            f"the output folder grades {', '.join(graded_too)} too: a kernel outside its "
            "exercise's folder is not guessed to be this run's exercise's"
        )
    elif len(exercises) > 1:
        first = exercises[0]
        why = (
            f"outside its exercise's folder, where {len(exercises)} exercises are graded: which "
            "exercise a kernel is for is not guessed; put each in its exercise's folder, named as "
            f"the stub is (e.g. {first.dir_name}/{first.spec.kernel.file})"
        )
    left = unread(folder, kernels_of(mine), placed, why)
    if left:
        mine = [replace(s, unread=True) if s.kernel is None else s for s in mine]
    return mine, found_note(layout, mine, exercises) + left


def kernels_of(mine: list[Submission]) -> set[Path]:
    return {s.kernel for s in mine if s.kernel is not None}


def found_note(layout: str, mine: list[Submission], exercises: Sequence[Exercise]) -> str:
    found = sum(s.kernel is not None and s.error is None for s in mine)
    refused = [s.error for s in mine if s.error]
    extra = f"; refused: {refused[0]}" if refused else ""
    notebooks = {s.kernel for s in mine if s.kernel is not None and s.kernel.suffix == ".ipynb"}
    for notebook in sorted(n for n in notebooks if marked_exercises(n) == set()):
        extra += (
            f"; {display(notebook.name)} has no cell marked for an exercise: graded 0, its "
            "feedback says how to mark one"
        )
    return f"{layout}, {found} of {len(exercises)} exercise(s) found{extra}"


def in_folder(
    folder: Path,
    student: str,
    exercises: Sequence[Exercise],
    layout: str,
    submitters: tuple[Submitter, ...] = (),
    others: Sequence[Exercise] = (),
    *,
    lone: bool = True,
) -> list[Submission]:
    """One student's submissions in their folder, one per exercise (kernel None if absent);
    a folder named for one of `others` (exercises not graded now) is never taken as a wrapper;
    without `lone`, a lone kernel is not taken as the one exercise's."""
    folder = unwrapped(folder, [*exercises, *others])
    # one exercise graded: its kernel may be anywhere at the top, unless the folder is laid out
    # by exercise (another exercise's folder there), when a stray file there is no kernel
    single = (
        lone
        and len(exercises) == 1
        and not any((folder / name).is_dir() for e in others for name in (e.dir_name, e.id))
    )
    out = []
    for exercise in exercises:
        try:
            kernel, error = find_kernel(folder, exercise, single)
        except OSError as exc:
            kernel, error = None, f"{display(folder.name)}: cannot be read ({exc.strerror})"
        answers = _answers(kernel, exercise) if kernel and not error else None
        out.append(Submission(student, exercise, kernel, answers, layout, error, submitters))
    return out


def _answers(kernel: Path, exercise: Exercise) -> Path | None:
    spec = exercise.spec.answers
    return kernel.parent / spec.file if spec else None

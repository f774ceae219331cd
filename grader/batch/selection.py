"""Which of the submissions found a batch grades: those --student names, less those already
graded from the very same bytes (--resume); with what is missing and what is refused, and the
hash of what each grading reads."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.batch.store import source_hash
from grader.batch.student_folder import Submission
from grader.bounded_read import read_bounded
from grader.errors import GraderError
from grader.grading import MAX_ANSWERS_BYTES
from grader.source import MAX_SOURCE_BYTES


@dataclass
class Selection:
    todo: list[tuple[Submission, str]] = field(default_factory=list)
    """Each submission to grade and its digest."""
    missing: list[tuple[str, str]] = field(default_factory=list)
    """(student, exercise) for each exercise a student handed nothing in for, unless an earlier
    result of it stands (a kernel the batch could not place, a student this run does not grade)."""
    absent: list[tuple[str, str]] = field(default_factory=list)
    """Those of `missing` whose earlier result, if any, is no longer current."""
    refused: list[str] = field(default_factory=list)
    """'student (exercise): reason' for each submission that cannot be graded."""


def _digest(submission: Submission) -> tuple[Submission, str]:
    """The submission (refused, with the reason, where its files cannot be read) and the hash
    of what is graded: its kernel and answers, read bounded and never through a link or FIFO;
    for a refused one, its reason, so that --resume does not redo it until it changes."""
    kernel = submission.kernel
    if submission.error is None and kernel is not None:
        try:
            text = read_bounded(kernel, _limit(kernel), kernel.name)
        except FileNotFoundError:
            submission = replace(submission, error=f"{kernel.name}: removed while grading")
        except GraderError as exc:
            submission = replace(submission, error=str(exc))
        else:
            return submission, source_hash(text, _answers_bytes(submission.answers))
    return submission, source_hash(b"refused", str(submission.error).encode())


def _limit(kernel: Path) -> int:
    return 16 * MAX_SOURCE_BYTES if kernel.suffix == ".ipynb" else MAX_SOURCE_BYTES


def _answers_bytes(answers: Path | None) -> bytes:
    """The answers file's bytes for the hash (b"" when absent; its reason when unusable: the
    grading reports it)."""
    if answers is None:
        return b""
    try:
        return read_bounded(answers, MAX_ANSWERS_BYTES)
    except FileNotFoundError:
        return b""
    except GraderError as exc:
        return f"unreadable: {exc}".encode()


def _wanted(submission: Submission, students: Sequence[str]) -> bool:
    """Whether --student names this submission: by its key, or by a submitter's SID, e-mail
    or name."""
    names = {submission.student}
    for person in submission.submitters:
        names |= {person.sid, person.email, person.name}
    return not students or not names.isdisjoint(students)


def unknown_students(found: Sequence[Submission], students: Sequence[str]) -> list[str]:
    """The names given to --student that no submission answers to (a typo, say)."""
    return [name for name in students if not any(_wanted(s, [name]) for s in found)]


def select_work(
    found: Sequence[Submission], students: Sequence[str], done: Collection[tuple[str, str, str]]
) -> Selection:
    """What to grade of `found`; `done`: (student, exercise, digest) of the current results,
    skipped unless --student names them."""
    work = Selection()
    current = {(student, exercise) for student, exercise, _ in done}
    for submission in found:
        wanted = _wanted(submission, students)
        if submission.kernel is None and submission.error is None:
            # missing and refused hand-ins are the batch's, whoever this run grades; an earlier
            # result is set aside only for those it grades (--student alice leaves bob's alone)
            pair = (submission.student, submission.exercise.id)
            if wanted and not submission.unread:  # a kernel not read may be this one's
                work.absent.append(pair)
            elif pair in current:
                continue  # its earlier result stands
            work.missing.append(pair)
            continue
        submission, digest = _digest(submission)
        if submission.error is not None:
            work.refused.append(
                f"{submission.student} ({submission.exercise.id}): {submission.error}"
            )
        if not wanted:
            continue
        key = (submission.student, submission.exercise.id, digest)
        if key in done and not students:
            continue  # complete already (--resume), with this very source
        work.todo.append((submission, digest))
    return work

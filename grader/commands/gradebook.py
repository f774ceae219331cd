"""`grader gradebook OUT... --to FILE.csv`: the term's gradebook from every exercise's batch
output, with course.yaml's late policy (grader/batch/gradebook.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.gradebook import collect, is_gradebook, roster_of, write_gradebook
from grader.course import Course
from grader.errors import EXIT_OK, GraderError


def run(*, course: Course, outs: Sequence[Path], target: Path, file_times: bool = False) -> int:
    if target.suffix != ".csv":
        raise GraderError(f"{target}: the gradebook is a .csv (a .sqlite is written beside it)")
    if (target.parent / "results.sqlite").exists():
        raise GraderError(
            f"--to {target}: inside a batch's output folder, whose own files it could replace; "
            "write the term's gradebook elsewhere"
        )
    for path in (target, target.with_suffix(".sqlite")):
        if path.exists() and not is_gradebook(path):
            raise GraderError(
                f"{path}: there, and not a gradebook this command wrote: give another --to "
                "(nothing is overwritten but an earlier gradebook)"
            )
    roster = roster_of(outs)
    term = collect(course, outs, file_times, roster)
    grades, nobody = term.grades, term.unknown
    database = write_gradebook(course, grades, target, roster, term.students)
    late = sum(1 for g in grades if g.days_late)
    unknown = sum(1 for g in grades if g.days_late is None)
    policy = "no deadlines in course.yaml" if course.deadlines is None else "late policy applied"
    print(
        f"gradebook: {target} and {database}: {len(term.students)} submission(s) (a group's is "
        f"a row per member), "
        f"{len(grades)} grade(s), {late} late, {unknown} with no hand-in time ({policy})"
    )
    for key in nobody:
        print(
            f"warning: course.yaml deadlines.extensions: {key!r} is no student of these batches "
            "(give a folder or zip name, or a submitter's SID, e-mail or name): not applied"
        )
    pending = sorted({g.exercise for g in grades if g.pending})
    if pending:
        waiting = sum(1 for g in grades if g.pending)
        print(
            f"not final: {waiting} written answer(s) of {', '.join(pending)} await review "
            f"(grader review OUT), shown as pending, not as 0"
        )
    ungraded = sorted({g.exercise for g in grades if g.needs_gpu})
    if ungraded:
        print(
            f"not final: {', '.join(ungraded)}: graded without a GPU; the points that need one "
            "are listed as not graded yet (grade them with a batch on a GPU)"
        )
    return EXIT_OK

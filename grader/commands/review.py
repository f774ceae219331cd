"""`grader review OUT [--exercise EX] [--student S] [--again] [--sheet F.csv | --record F.csv |
--status]`: a person grades the written answers of a batch with each exercise's rubric (its spec's
answers.review), at the terminal one answer at a time, or through a CSV sheet that TAs fill in.
Each review is recorded as it is given (grader/batch/reviews.py): stopping anywhere keeps them,
and running again goes on with the answers still pending."""

from __future__ import annotations

import getpass
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from grader.batch.review_sheet import read_sheet, sheet_exercise, write_sheet
from grader.batch.reviews import Review, Written, parse_ticks, rubric_of, written_answer
from grader.batch.store import ResultStore
from grader.batch.view import rewrite_outputs
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.review import (
    PROMPT_COMMENT,
    PROMPT_ITEMS,
    Rubric,
    answer_panel,
    pending_lines,
    recorded_line,
)

Key = tuple[str, str, str]


class _StoppedError(Exception):
    """The reviewer stopped (q, end of input)."""


def run(
    *,
    course: Course,
    out: Path,
    exercises: Sequence[str] = (),
    students: Sequence[str] = (),
    again: bool = False,
    sheet: Path | None = None,
    record: Path | None = None,
    status: bool = False,
    reviewer: str | None = None,
) -> int:
    rubrics = {e.id: rubric_of(e.rubric) for e in course.exercises if e.rubric is not None}
    chosen = [course.find(key).id for key in exercises]
    if (sheet or record) and len(chosen) > 1:
        raise GraderError("a review sheet is one exercise's: give one --exercise")
    if record is not None:
        chosen = _of_the_sheet(course, record, chosen)
    for exercise in chosen:
        if exercise not in rubrics:
            raise GraderError(
                f"{exercise}: no rubric (the spec's answers.review, its file in solutions/): "
                "nothing to review"
            )
    who = reviewer or getpass.getuser()
    store = ResultStore.of_batch(out)
    try:
        written = [
            answer
            for result in store.latest(reviewed=False)
            if (answer := written_answer(result.student, result.report)) is not None
        ]
        # by default, each exercise with a rubric that this batch has written answers for
        chosen = chosen or [e for e in rubrics if any(w.exercise == e for w in written)]
        if sheet and len(chosen) != 1:
            raise GraderError(
                f"a review sheet is one exercise's; this batch has answers of {len(chosen)}: "
                "give --exercise"
            )
        answers = _answers(written, chosen, students, out)
        done = store.reviews()
        if sheet is not None:
            todo = [a for a in answers if again or _key(a) not in done]
            write_sheet(sheet, chosen[0], todo, rubrics[chosen[0]], done)
            print(f"review sheet: {sheet}: {len(todo)} answer(s) of {chosen[0]} to review")
            return EXIT_OK
        if record is not None:
            reviews, blank = read_sheet(record, chosen[0], answers, rubrics[chosen[0]], who)
            for review in reviews:
                store.record_review(review)
            print(f"{record}: {len(reviews)} review(s) recorded, {blank} row(s) left blank")
        elif not status:
            _at_the_terminal(store, answers, done, rubrics, who, again)
        now = store.reviews()
        # the whole batch's, also where --student picked whom to review now
        counts = _counts(_answers(written, chosen, (), out), now, chosen)
        # the outputs change only where a review did (not after a `q` that recorded nothing)
        changed = not status and now != done
        rewritten = changed and rewrite_outputs(out, course, store)
    finally:
        store.close()
    for line in pending_lines(counts, str(out)):
        print(line)
    if rewritten:
        print(
            f"{out}: gradebook.csv, summary.md, performance_scores.csv and feedback/ written again "
            f"with the reviews; the term's grades: grader gradebook {out} --to FILE.csv"
        )
    elif changed:
        print(
            f"{out / 'gradebook.csv'} is from before the reviews (a batch of an older grader): "
            f"`grader gradebook {out} --to FILE.csv` and `grader feedback {out}` give them"
        )
    return EXIT_OK


def _of_the_sheet(course: Course, record: Path, chosen: list[str]) -> list[str]:
    """The exercise of the sheet to record: the one its rows name, which --exercise, if given,
    must agree with."""
    named = sheet_exercise(record)
    if named is None:
        if chosen:
            return chosen
        raise GraderError(f"{record}: no row names its exercise: give --exercise")
    name, line = named
    try:
        exercise = course.find(name).id
    except GraderError:
        raise GraderError(
            f"{record}:{line}: exercise {name!r} is none of the course's "
            f"({', '.join(e.id for e in course.exercises)})"
        ) from None
    if chosen and chosen != [exercise]:
        raise GraderError(
            f"{record}:{line}: the sheet is {exercise}'s, not {chosen[0]}'s (--exercise): "
            "record it without --exercise, or give the sheet of that exercise"
        )
    return [exercise]


def _key(written: Written) -> Key:
    return (written.student, written.exercise, written.digest)


def _answers(
    written: Sequence[Written], chosen: Sequence[str], students: Sequence[str], out: Path
) -> list[Written]:
    """The written answers of the exercises chosen (and of the students named, each of whom
    must have one)."""
    found = [w for w in written if w.exercise in chosen]
    if students:
        unknown = sorted(set(students) - {w.student for w in found})
        if unknown:
            raise GraderError(f"{out}: no written answer to review from {', '.join(unknown)}")
        found = [w for w in found if w.student in students]
    return found


def _counts(
    answers: Sequence[Written], done: dict[Key, Review], chosen: Sequence[str]
) -> list[tuple[str, int, int]]:
    counts = []
    for exercise in chosen:
        mine = [a for a in answers if a.exercise == exercise]
        reviewed = sum(1 for a in mine if _key(a) in done)
        counts.append((exercise, reviewed, len(mine) - reviewed))
    return counts


def _at_the_terminal(
    store: ResultStore,
    answers: Sequence[Written],
    done: dict[Key, Review],
    rubrics: dict[str, Rubric],
    reviewer: str,
    again: bool,
) -> None:
    """One answer after another; each review recorded at once. q or the end of input stops."""
    console = Console(highlight=False)
    todo = [a for a in answers if again or _key(a) not in done]
    for index, written in enumerate(todo, start=1):
        rubric = rubrics[written.exercise]
        earlier = done.get(_key(written))
        before = (earlier.ticked, earlier.points, earlier.comment) if earlier else None
        console.print(
            answer_panel(
                (written.exercise, written.student), written.text, rubric,
                (index, len(todo)), before,
            )
        )  # fmt: skip
        try:
            ticked = _ask_items(console, rubric)
            if ticked is None:
                continue
            comment = input(PROMPT_COMMENT).strip()
        except (_StoppedError, EOFError):
            console.print("stopped: every review given so far is recorded")
            return
        review = Review(
            student=written.student, exercise=written.exercise, answer_sha256=written.digest,
            ticked=ticked, rubric=rubric, comment=comment, reviewer=reviewer,
            reviewed_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )  # fmt: skip
        store.record_review(review)
        console.print(
            recorded_line(review.exercise, review.student, review.points, review.max_points)
        )


def _ask_items(console: Console, rubric: Rubric) -> tuple[str, ...] | None:
    """The items the reviewer gives; None to skip this answer; _StoppedError to stop."""
    while True:
        typed = input(PROMPT_ITEMS).strip()
        if typed.lower() in ("q", "quit"):
            raise _StoppedError
        if typed.lower() in ("s", "skip"):
            return None
        if not typed:
            console.print("type the items the answer earns, 'none', s to skip or q to stop")
            continue
        try:
            return parse_ticks(typed, rubric)
        except ValueError as exc:
            console.print(str(exc), markup=False)

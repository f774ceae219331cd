"""What a batch run leaves for instructors, written to files: gradebook.csv, feedback per student
(Markdown and JSON, the same content as `grader check`), summary.md and performance_scores.csv.
The text comes from grader/report/; every CSV goes through csv_safe, so no name in it runs as a
spreadsheet formula."""

from __future__ import annotations

import collections
from collections.abc import Collection, Sequence
from pathlib import Path

from grader.batch.names import display, file_name, note_owner
from grader.batch.store import StoredResult
from grader.checks.registry import plan
from grader.course import Exercise
from grader.csv_safe import write_csv
from grader.report.feedback_html import feedback_html
from grader.report.gradebook import carries_correctness, gradebook, performance_scores
from grader.report.json_text import feedback_json
from grader.report.markdown import feedback_markdown, nothing_graded_markdown
from grader.report.stored import Roster
from grader.report.summary import render_summary
from grader.results import Report


def write_gradebook(
    path: Path,
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[StoredResult],
    roster: Roster | None = None,
) -> None:
    """A row per student (per member of a group): the points per exercise and the total."""
    write_csv(path, *gradebook(students, exercises, results, roster))


def write_feedback(
    folder: Path,
    results: Sequence[StoredResult],
    students: Sequence[str] = (),
    missing: Sequence[tuple[str, str]] = (),
    said: Sequence[str] = (),
    replaced: Collection[tuple[str, str]] = (),
) -> None:
    """feedback/<student>.md and .json (the file name plain, or with a hash: see file_name), for
    the students named or every one; the Markdown ends by naming the exercises of the batch that
    the student handed nothing in for (`missing`: (student, exercise)), with what the batch said
    of their hand-in (`said`: discovery's notes, 'entry: ...'), and starts by naming those
    `replaced` by the same person's later hand-in under another key."""
    notes = notes_by_student([r.student for r in results], said)
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[StoredResult]] = collections.defaultdict(list)
    for result in results:
        if not students or result.student in students:
            by_student[result.student].append(result)
    for student, mine in by_student.items():
        reports = [Report.from_json(r.report).for_student() for r in mine]
        name = file_name(student)
        text = _replaced(student, replaced) + feedback_markdown(reports)
        text += _not_found(student, missing, notes.get(student, []))
        (folder / f"{name}.md").write_text(text)
        (folder / f"{name}.json").write_text(feedback_json(reports))


def _replaced(student: str, replaced: Collection[tuple[str, str]]) -> str:
    """The note on the exercises whose grading here a later hand-in replaced ('' for none)."""
    later = sorted(exercise for who, exercise in replaced if who == student)
    if not later:
        return ""
    return (
        f"# Replaced: {', '.join(later)}\n\nA later hand-in of yours, under another submission, "
        f"is the one graded for {', '.join(later)}; this earlier one's grading follows, for "
        "reference only.\n\n"
    )


def _not_found(student: str, missing: Sequence[tuple[str, str]], notes: Sequence[str] = ()) -> str:
    """The section naming the exercises the student handed nothing in for, and what the batch
    said of their hand-in ('' where nothing is missing)."""
    absent = [exercise for who, exercise in missing if who == student]
    if not absent:
        return ""
    text = (
        f"\n# Not found: {', '.join(absent)}\n\nThe batch found nothing of yours for "
        f"{', '.join(absent)}: each kernel goes in its exercise's folder, named as the "
        "stub is (kernel.cu), or in a notebook cell marked for the exercise.\n"
    )
    if notes:
        text += "\nWhat the batch found:\n\n" + "".join(f"- {note}\n" for note in notes)
    return text


def notes_by_student(students: Sequence[str], said: Sequence[str]) -> dict[str, list[str]]:
    """Discovery's notes ('entry: ...'), each under the student whose entry it names."""
    shown = {display(s): s for s in students}
    mine: dict[str, list[str]] = {}
    for note in said:
        entry, _, what = note.partition(": ")
        owner = note_owner(entry, set(shown))
        if owner is not None:
            mine.setdefault(shown[owner], []).append(what)
    return mine


def write_nothing_graded(
    folder: Path,
    students: Sequence[str],
    results: Sequence[StoredResult],
    said: Sequence[str],
    *,
    html: bool = False,
) -> None:
    """Feedback for those of `students` with no result (nothing handed in that could be read, or
    every exercise dropped): what was looked for and what the batch said of their hand-in
    (`said`: its notes, 'entry: ...'), in place of any earlier feedback, which no longer holds;
    with `html`, as a page too."""
    graded = {r.student for r in results}
    mine = notes_by_student(students, said)
    for student in sorted(set(students) - graded):
        name = file_name(student)
        notes = mine.get(student, [])
        text = nothing_graded_markdown(student, notes)
        (folder / f"{name}.md").write_text(text)
        (folder / f"{name}.json").write_text(feedback_json([]))
        page = folder / f"{name}.html"
        if html:
            page.write_text(feedback_html(student, [], text))
        else:
            page.unlink(missing_ok=True)


def write_feedback_html(
    folder: Path,
    results: Sequence[StoredResult],
    students: Sequence[str] = (),
    missing: Sequence[tuple[str, str]] = (),
    said: Sequence[str] = (),
    replaced: Collection[tuple[str, str]] = (),
) -> list[Path]:
    """feedback/<student>.html for each student with results (those named, or every one): each
    page from that student's own results, without the seed, and the exercises `missing` for
    them with what the batch `said` of their hand-in; returns the pages written."""
    notes = notes_by_student([r.student for r in results], said)
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[StoredResult]] = collections.defaultdict(list)
    for result in results:
        if not students or result.student in students:
            by_student[result.student].append(result)
    written = []
    for student, mine in sorted(by_student.items()):
        reports = [Report.from_json(r.report).for_student() for r in mine]
        page = folder / f"{file_name(student)}.html"
        more = _replaced(student, replaced) + _not_found(student, missing, notes.get(student, []))
        page.write_text(feedback_html(student, reports, more))
        written.append(page)
    return written


def write_summary(
    path: Path,
    results: Sequence[StoredResult],
    missing: Sequence[tuple[str, str]],
    baselines: Sequence[str] = (),
    refused: Sequence[str] = (),
    skipped: Sequence[str] = (),
) -> None:
    """summary.md (grader/report/summary.py)."""
    listed = [f"{student}: {exercise}" for student, exercise in missing]
    path.write_text(render_summary(results, listed, baselines, refused, skipped))


def write_performance_scores(
    path: Path,
    students: Sequence[str],
    exercises: Sequence[Exercise],
    results: Sequence[StoredResult],
    roster: Roster | None = None,
) -> None:
    """The points of the checks graded only on a GPU, a row per student (per member of a
    group): what a GPU batch hands to the platform whose autograder has no GPU."""
    gpu_checks = {e.id: {p.name for p in plan(e.spec) if p.needs_gpu} for e in exercises}
    # ex1 has no such check: no column of blanks, unless a kernel the CPU backend refuses (whose
    # correctness only a GPU grades) was graded on a GPU
    carried = {r.exercise for r in results if carries_correctness(Report.from_json(r.report))}
    ids = [e.id for e in exercises if gpu_checks[e.id] or e.id in carried]
    write_csv(path, *performance_scores(students, ids, results, gpu_checks, roster))

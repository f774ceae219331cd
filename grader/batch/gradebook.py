"""The term's gradebook (`grader gradebook`): every exercise's batch results merged, the late
policy applied to each hand-in time, written as CSV (through csv_safe) and SQLite."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.batch.late import for_students, lateness
from grader.batch.store import ResultStore
from grader.course import Course
from grader.csv_safe import Cell, write_csv
from grader.report.gradebook import NOT_GRADED_YET, identity_columns, not_graded_yet, people, who
from grader.report.stored import Person, Roster
from grader.results import Report


@dataclass(frozen=True)
class Grade:
    student: str
    exercise: str
    raw: float
    """The points the grading gave."""
    days_late: int | None
    points: float
    """After the late policy."""
    submitted_at: float | None
    pending: float = 0.0
    """Points that await a person's review (`grader review`): neither in `points` nor lost."""
    needs_gpu: float = 0.0
    """Points of checks skipped for want of a GPU: neither in `points` nor lost."""
    batch: int = 0
    """Which of the batch outputs it comes from, in the command line's order."""


@dataclass(frozen=True)
class Term:
    grades: list[Grade]
    students: list[str]
    """Every student of the batches: those with no grade too (nothing handed in, or every
    exercise dropped)."""
    unknown: list[str]
    """Extension keys that name no one."""


def collect(
    course: Course, outs: Sequence[Path], file_times: bool = False, roster: Roster | None = None
) -> Term:
    """The newest result of each student x exercise across the batch outputs `outs` (a later
    one on the command line wins), with the late policy applied to the hand-in times a platform
    recorded (a Gradescope export's), and to files' modification times only with `file_times`
    (a download or a copy may have reset them: every student would look late). Extensions may
    name a student's key or the SID, e-mail or name of someone in `roster`. An exercise a later
    batch found no longer handed in (set aside) has no grade, whatever an earlier one gave."""
    newest: dict[tuple[str, str], tuple[float, float | None, Report, int]] = {}
    students: set[str] = set()
    for batch, out in enumerate(outs):
        store = ResultStore.of_batch(out)
        try:
            view = store.view()
            students.update(view.get("students", []) if view else [])
            for pair in store.set_aside_now():
                newest.pop(pair, None)
            times = store.handed_in()
            for result in store.latest():
                key = (result.student, result.exercise)
                at, source = times.get(key, (None, ""))
                when = at if source == "export" or file_times else None
                newest[key] = (result.score, when, Report.from_json(result.report), batch)
        finally:
            store.close()
    students.update(student for student, _ in newest)
    policy, unknown = for_students(course.deadlines, students, roster or {})
    grades = []
    for (student, exercise), (raw, at, report, batch) in sorted(newest.items()):
        late = lateness(policy, student, exercise, at)
        points = round(raw * late.kept, 2)
        grades.append(
            Grade(
                student, exercise, raw, late.days, points, at, report.pending, report.needs_gpu,
                batch,
            )
        )  # fmt: skip
    return Term(grades, sorted(students), unknown)


def roster_of(outs: Sequence[Path]) -> Roster:
    """Who is behind each submission, as the batches' exports named them (a later folder wins)."""
    roster: dict[str, Sequence[Person]] = {}
    for out in outs:
        store = ResultStore.of_batch(out)
        try:
            roster.update(store.submitters())
        finally:
            store.close()
    return roster


def write_gradebook(
    course: Course,
    grades: Sequence[Grade],
    target: Path,
    roster: Roster | None = None,
    students: Sequence[str] = (),
) -> Path:
    """TARGET.csv (a row per student, or per person of a group where an export named them,
    with the columns Gradescope's uploads read: each exercise's points after the policy and its
    days late, then the total and what is not graded yet: the total is not final while it says
    anything) and TARGET.sqlite (a row per grade); returns the SQLite path."""
    roster = roster or {}
    named = any(roster.values())
    exercises = [e.id for e in course.exercises]
    students = sorted({*students, *(g.student for g in grades)})
    by_key = {(g.student, g.exercise): g for g in grades}
    header = identity_columns(named)
    for exercise in exercises:
        header += [exercise, f"{exercise} days late"]
    rows: list[list[Cell]] = []
    counted: list[Grade] = []
    for keys, member in people(students, roster):
        row: list[Cell] = who(" ".join(keys), member, named)
        total = 0.0
        waiting = []
        for exercise in exercises:
            grade = _newest([by_key[k, exercise] for k in keys if (k, exercise) in by_key])
            if grade is None:
                row += ["", ""]
                continue
            counted.append(grade)
            total += grade.points
            row += [f"{grade.points:g}", "?" if grade.days_late is None else str(grade.days_late)]
            if note := not_graded_yet(grade.needs_gpu, grade.pending):
                waiting.append(f"{exercise}: {note}")
        rows.append([*row, f"{total:g}", "; ".join(waiting)])
    write_csv(target, [*header, "total", NOT_GRADED_YET], rows)
    database = target.with_suffix(".sqlite")
    database.unlink(missing_ok=True)
    with sqlite3.connect(database) as db:
        db.execute(
            "CREATE TABLE grades (student TEXT, exercise TEXT, raw REAL, days_late INTEGER,"
            " points REAL, submitted_at REAL, pending REAL, PRIMARY KEY (student, exercise))"
        )
        db.executemany(
            "INSERT INTO grades VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (g.student, g.exercise, g.raw, g.days_late, g.points, g.submitted_at, g.pending)
                for g in dict.fromkeys(counted)
            ],
        )
    db.close()
    return database


def _newest(grades: Sequence[Grade]) -> Grade | None:
    """The grade that counts of one person's for one exercise: the later batch's on the command
    line, within one the later hand-in."""
    if not grades:
        return None
    return max(grades, key=lambda g: (g.batch, g.submitted_at or 0.0))


def is_gradebook(path: Path) -> bool:
    """Whether `path` is a gradebook `write_gradebook` wrote (the CSV or its SQLite): only such a
    file is written over."""
    try:
        if path.suffix == ".csv":
            with path.open(encoding="utf-8", errors="replace") as handle:
                header = handle.readline().rstrip("\r\n")
            return header.startswith(("student,", "submission,SID,")) and header.endswith(
                f",total,{NOT_GRADED_YET}"
            )
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        db.close()
        return tables == {"grades", "sqlite_autoindex_grades_1"} or tables == {"grades"}
    except (OSError, sqlite3.Error):
        return False

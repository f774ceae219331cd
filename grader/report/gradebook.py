"""The gradebook and the performance scores as CSV rows (a header and a row per student, or per
member of a group, with the same leading columns in both): the points per exercise, as
grader/batch/outputs.py writes them through grader/csv_safe.py, so that no name in them runs as a
spreadsheet formula."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from grader.csv_safe import Cell
from grader.report.stored import Graded, Person, Roster
from grader.results import Report

Table = tuple[list[str], list[list[Cell]]]
"""A CSV's header and rows."""


def person_rows(students: Sequence[str], roster: Roster) -> list[tuple[str, Person | None]]:
    """(key, member) for each row: one per member of a group, one per key without a roster."""
    rows: list[tuple[str, Person | None]] = []
    for student in students:
        members = roster.get(student, ())
        rows += [(student, m) for m in members] if members else [(student, None)]
    return rows


def identity_columns(named: bool) -> list[str]:
    """The leading columns of both CSVs: the key, then who, where an export names them (with
    the headers Gradescope's own exports and score uploads use)."""
    return ["submission", "SID", "Email", "Name"] if named else ["student"]


def who(student: str, member: Person | None, named: bool) -> list[Cell]:
    if not named:
        return [student]
    return [student, *((member.sid, member.email, member.name) if member else ("", "", ""))]


def _cell(points: float | None) -> str:
    return "" if points is None else f"{points:g}"


def gradebook(
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[Graded],
    roster: Roster | None = None,
) -> Table:
    """A row per student (a row per member of each submission, with their SID, e-mail and
    name, where an export names them): the points per exercise, the total, and the written
    answers still pending review (the total is not final while any is)."""
    roster = roster or {}
    scores = {(r.student, r.exercise): r.score for r in results}
    reports = {(r.student, r.exercise): Report.from_json(r.report) for r in results}
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for student, member in person_rows(students, roster):
        points = [scores.get((student, e)) for e in exercises]
        total = sum(p for p in points if p is not None)
        waiting = "; ".join(
            f"{e}: {note}"
            for e in exercises
            if (report := reports.get((student, e)))
            and (note := not_graded_yet(report.needs_gpu, report.pending))
        )
        row = [*who(student, member, named), *(_cell(p) for p in points), f"{total:g}", waiting]
        rows.append(row)
    return [*identity_columns(named), *exercises, "total", NOT_GRADED_YET], rows


NOT_GRADED_YET = "not graded yet"
"""The gradebooks' last column: points neither given nor lost yet, so the total is not final."""


def not_graded_yet(needs_gpu: float, pending: float) -> str:
    """e.g. `70 need a GPU, 10 pending review` ('' where every point is graded)."""
    notes = [f"{needs_gpu:g} need a GPU"] if needs_gpu else []
    notes += [f"{pending:g} pending review"] if pending else []
    return ", ".join(notes)


def carries_correctness(report: Report) -> bool:
    """A GPU's grading of a kernel the CPU backend refuses: a CPU grading (Gradescope's) left
    its correctness to a GPU, so performance_scores.csv carries those points too."""
    return report.device.backend == "gpu" and report.cpu_refuses


def performance_scores(
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[Graded],
    gpu_checks: Mapping[str, Collection[str]],
    roster: Roster | None = None,
) -> Table:
    """The points of the checks graded only on a GPU (`gpu_checks`: per exercise, their names:
    timing, profiles, answers graded against GPU measurements; and correctness, for a kernel
    the CPU backend refuses), one row per student (per member
    of a group, by SID, e-mail and name, where an export names them): what a GPU batch hands to
    Gradescope ('Upload scores') or Canvas, where the CPU-only autograder left them out. Empty
    where the grading had no GPU; 0 for nothing handed in, where the exercise was graded on one."""
    roster = roster or {}
    points: dict[tuple[str, str], float] = {}
    handed_in: set[tuple[str, str]] = set()
    timed: set[str] = set()  # exercises graded on a GPU
    for result in results:
        handed_in.add((result.student, result.exercise))
        names = gpu_checks.get(result.exercise, ())
        report = Report.from_json(result.report)
        if report.device.backend == "gpu":
            timed.add(result.exercise)
        carried = carries_correctness(report)
        on_gpu = [
            c for c in report.checks if c.name in names or (carried and c.kind == "correctness")
        ]
        if on_gpu and not any(c.needs_a_gpu for c in on_gpu):
            points[(result.student, result.exercise)] = round(sum(c.score for c in on_gpu), 2)
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for student, member in person_rows(students, roster):
        cells = [
            _cell(0.0 if e in timed and (student, e) not in handed_in else points.get((student, e)))
            for e in exercises
        ]
        rows.append([*who(student, member, named), *cells])
    return [*identity_columns(named), *(f"{e} on a GPU" for e in exercises)], rows

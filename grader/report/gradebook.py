"""The gradebook and the performance scores as CSV rows (a header and a row per student, or per
member of a group, with the same leading columns in both): the points per exercise, as
grader/batch/outputs.py writes them through grader/csv_safe.py, so that no name in them runs as a
spreadsheet formula."""

from __future__ import annotations

from collections.abc import Sequence

from grader.csv_safe import Cell
from grader.report.stored import Graded, Person, Roster
from grader.results import Report

Table = tuple[list[str], list[list[Cell]]]
"""A CSV's header and rows."""


def _rows(students: Sequence[str], roster: Roster) -> list[tuple[str, Person | None]]:
    """(key, member) for each row: one per member of a group, one per key without a roster."""
    rows: list[tuple[str, Person | None]] = []
    for student in students:
        members = roster.get(student, ())
        rows += [(student, m) for m in members] if members else [(student, None)]
    return rows


def _identity(named: bool) -> list[str]:
    """The leading columns of both CSVs: the key, then who, where an export names them (with
    the headers Gradescope's own exports and score uploads use)."""
    return ["submission", "SID", "Email", "Name"] if named else ["student"]


def _who(student: str, member: Person | None, named: bool) -> list[Cell]:
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
    waiting = {(r.student, r.exercise): Report.from_json(r.report).pending for r in results}
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for student, member in _rows(students, roster):
        points = [scores.get((student, e)) for e in exercises]
        total = sum(p for p in points if p is not None)
        pending = "; ".join(
            f"{e} ({waiting[(student, e)]:g} points)"
            for e in exercises
            if waiting.get((student, e))
        )
        row = [*_who(student, member, named), *(_cell(p) for p in points), f"{total:g}", pending]
        rows.append(row)
    return [*_identity(named), *exercises, "total", "pending review"], rows


def performance_scores(
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[Graded],
    roster: Roster | None = None,
) -> Table:
    """The performance checks' points alone, one row per student (per member of a group, by
    SID, e-mail and name, where an export names them): what a GPU batch run hands to
    Gradescope ('Upload scores') or Canvas, where the CPU-only autograder left them out."""
    roster = roster or {}
    points: dict[tuple[str, str], float] = {}
    for result in results:
        report = Report.from_json(result.report)
        timed = [c for c in report.checks if c.kind == "performance" and c.status != "skipped"]
        if timed:
            points[(result.student, result.exercise)] = sum(c.score for c in timed)
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for student, member in _rows(students, roster):
        cells = [_cell(points.get((student, e))) for e in exercises]
        rows.append([*_who(student, member, named), *cells])
    return [*_identity(named), *(f"{e} performance" for e in exercises)], rows

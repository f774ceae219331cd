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


def people(students: Sequence[str], roster: Roster) -> list[tuple[list[str], Person | None]]:
    """A row per person: the keys of every submission an export names them in (the same
    person where an SID or an e-mail is the same: a resubmission, or another assignment's
    export, has a key of its own, and one export may lack the SID), and who they are (as the
    first of those submissions that gives an SID names them); a row per key where no export
    names anyone."""
    rows = person_rows(students, roster)
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, (_, member) in enumerate(rows):
        if member is None:
            continue
        for mark in (f"sid:{member.sid}" if member.sid else "", f"email:{member.email.lower()}"):
            if mark and mark != "email:":
                j = first.setdefault(mark, i)
                parent[root(i)] = root(j)
    found: dict[int, tuple[list[str], Person | None]] = {}
    for i, (key, member) in enumerate(rows):
        keys, shown = found.get(root(i), ([], None))
        if key not in keys:
            keys.append(key)
        if shown is None or (member is not None and member.sid and not shown.sid):
            shown = member  # the first that names them with an SID
        found[root(i)] = (keys, shown)
    return list(found.values())


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


def _newest(
    keys: Sequence[str], exercise: str, by_key: Mapping[tuple[str, str], Graded]
) -> Graded | None:
    """The result that counts of one person's for one exercise: the later hand-in's (a
    resubmission exported with a key of its own is the same person's, by SID or e-mail)."""
    found = [by_key[k, exercise] for k in keys if (k, exercise) in by_key]
    return max(found, key=lambda r: r.submitted_at) if found else None


def superseded(
    students: Sequence[str], results: Sequence[Graded], roster: Roster
) -> set[tuple[str, str]]:
    """(key, exercise) of the results that count for no one: each member of their submission
    has a later hand-in of that exercise under another key (a resubmission, a key of its own)."""
    by_key = {(r.student, r.exercise): r for r in results}
    keys = list(dict.fromkeys([*students, *(r.student for r in results)]))
    exercises = {r.exercise for r in results}
    counting = {
        id(newest)
        for person_keys, _ in people(keys, roster)
        for exercise in exercises
        if (newest := _newest(person_keys, exercise, by_key)) is not None
    }
    return {(r.student, r.exercise) for r in results if id(r) not in counting}


def gradebook(
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[Graded],
    roster: Roster | None = None,
) -> Table:
    """A row per student (a row per person, with their SID, e-mail and name, where an export
    names them: each member of a group, and one row for a person's submissions under several
    keys, each exercise's points from the later hand-in): the points per exercise, the total,
    and what is not graded yet (the total is not final while it says anything)."""
    roster = roster or {}
    by_key = {(r.student, r.exercise): r for r in results}
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for keys, member in people(students, roster):
        counted = {e: _newest(keys, e, by_key) for e in exercises}
        points = [r.score if r else None for r in counted.values()]
        total = sum(p for p in points if p is not None)
        waiting = "; ".join(
            f"{e}: {note}"
            for e, r in counted.items()
            if r
            and (report := Report.from_json(r.report))
            and (note := not_graded_yet(report.needs_gpu, report.pending))
        )
        row = [*who(" ".join(keys), member, named), *(_cell(p) for p in points), f"{total:g}"]
        rows.append([*row, waiting])
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
    by_key = {(r.student, r.exercise): r for r in results}
    reports = {id(r): Report.from_json(r.report) for r in results}  # each read once
    timed = {r.exercise for r in results if reports[id(r)].device.backend == "gpu"}
    named = any(roster.values())
    rows: list[list[Cell]] = []
    for keys, member in people(students, roster):
        cells = []
        for exercise in exercises:
            result = _newest(keys, exercise, by_key)
            if result is None:  # nothing handed in: 0 where the exercise was graded on a GPU
                cells.append(_cell(0.0 if exercise in timed else None))
                continue
            cells.append(_cell(_on_gpu(reports[id(result)], gpu_checks[exercise])))
        rows.append([*who(" ".join(keys), member, named), *cells])
    return [*identity_columns(named), *(f"{e} on a GPU" for e in exercises)], rows


def _on_gpu(report: Report, names: Collection[str]) -> float | None:
    """The points of the checks a GPU grades in `report`, None where it had none to grade them."""
    carried = carries_correctness(report)
    on_gpu = [c for c in report.checks if c.name in names or (carried and c.kind == "correctness")]
    if not on_gpu or any(c.needs_a_gpu for c in on_gpu):
        return None
    return round(sum(c.score for c in on_gpu), 2)

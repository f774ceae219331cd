"""What a batch run leaves for instructors: gradebook.csv, feedback per student (Markdown and
JSON, the same content as `grader check`), and a summary. Every CSV goes through csv_safe, so no
name in it runs as a spreadsheet formula."""

from __future__ import annotations

import collections
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.batch.names import file_name
from grader.batch.store import StoredResult
from grader.batch.submitters import Submitter
from grader.csv_safe import Cell, write_csv
from grader.report import render_markdown
from grader.results import Report

Roster = Mapping[str, Sequence[Submitter]]
"""Student key -> everyone who made that submission (a Gradescope export's groups); a key not
in it is its own row."""


def _rows(students: Sequence[str], roster: Roster) -> list[tuple[str, Submitter | None]]:
    """(key, member) for each row: one per member of a group, one per key without a roster."""
    rows: list[tuple[str, Submitter | None]] = []
    for student in students:
        members = roster.get(student, ())
        rows += [(student, m) for m in members] if members else [(student, None)]
    return rows


def write_gradebook(
    path: Path,
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[StoredResult],
    roster: Roster | None = None,
) -> None:
    """A row per student (a row per member of each submission, with their SID, e-mail and
    name, where an export names them): the points per exercise and the total."""
    roster = roster or {}
    scores = {(r.student, r.exercise): r.score for r in results}
    named = any(roster.values())
    rows = []
    for student, member in _rows(students, roster):
        points = [scores.get((student, e)) for e in exercises]
        total = sum(p for p in points if p is not None)
        who: list[Cell] = [student]
        if named:
            who += [member.sid, member.email, member.name] if member else ["", "", ""]
        rows.append([*who, *("" if p is None else f"{p:g}" for p in points), f"{total:g}"])
    header = ["submission", "sid", "email", "name"] if named else ["student"]
    write_csv(path, [*header, *exercises, "total"], rows)


def write_feedback(folder: Path, results: Sequence[StoredResult]) -> None:
    """feedback/<student>.md and .json (the file name plain, or with a hash: see file_name)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[StoredResult]] = collections.defaultdict(list)
    for result in results:
        by_student[result.student].append(result)
    for student, mine in by_student.items():
        reports = [Report.from_json(r.report).for_student() for r in mine]
        name = file_name(student)
        (folder / f"{name}.md").write_text("\n".join(render_markdown(r) for r in reports))
        (folder / f"{name}.json").write_text(json.dumps([r.to_json() for r in reports], indent=2))


def write_summary(
    path: Path,
    results: Sequence[StoredResult],
    missing: Sequence[str],
    baselines: Sequence[str] = (),
    refused: Sequence[str] = (),
) -> None:
    """summary.md: scores per exercise, the commonest failures, gradings that errored (with
    their first line), submissions refused (with the reason), missing ones, GPU baselines."""
    lines = ["# Batch summary", ""]
    by_exercise: dict[str, list[StoredResult]] = collections.defaultdict(list)
    for result in results:
        by_exercise[result.exercise].append(result)
    for exercise, rows in sorted(by_exercise.items()):
        scores = [r.score for r in rows]
        lines.append(
            f"- {exercise}: {len(rows)} graded, median {statistics.median(scores):g}, "
            f"min {min(scores):g}, max {max(scores):g} (of {rows[0].max_score:g})"
        )
    failures: collections.Counter[str] = collections.Counter()
    errored: list[str] = []
    for result in results:
        for check in Report.from_json(result.report).checks:
            if check.status == "failed":
                failures[f"{result.exercise}: {check.name}"] += 1
            if check.status == "error":
                first = check.message.strip().splitlines()[0][:200] if check.message.strip() else ""
                errored.append(f"{result.student} ({result.exercise}): {check.name}: {first}")
    lines += ["", "## Most common failed checks", ""]
    lines += [f"- {name}: {count}" for name, count in failures.most_common(10)] or ["- none"]
    lines += ["", "## Gradings that errored", ""] + ([f"- {e}" for e in errored] or ["- none"])
    lines += ["", "## Submissions refused (0 points, the reason in their feedback)", ""]
    lines += [f"- {r}" for r in refused] or ["- none"]
    lines += ["", "## Missing submissions", ""] + ([f"- {m}" for m in missing] or ["- none"])
    lines += ["", "## Baseline timings per GPU lane", ""]
    lines += [f"- {b}" for b in baselines] or ["- none timed"]
    path.write_text("\n".join(lines) + "\n")


def write_performance_scores(
    path: Path,
    students: Sequence[str],
    exercises: Sequence[str],
    results: Sequence[StoredResult],
    roster: Roster | None = None,
) -> None:
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
    rows = []
    for student, member in _rows(students, roster):
        row = [points.get((student, e)) for e in exercises]
        who: list[Cell] = [member.sid, member.email, member.name] if member else [student]
        if named and not member:
            who += ["", ""]
        rows.append([*who, *("" if p is None else f"{p:g}" for p in row)])
    header = ["SID", "Email", "Name"] if named else ["SID"]
    write_csv(path, [*header, *(f"{e} performance" for e in exercises)], rows)

"""What a batch run leaves for instructors: gradebook.csv, feedback per student (Markdown and
JSON, the same content as `grader check`), and a summary."""

from __future__ import annotations

import collections
import csv
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from grader.batch.store import StoredResult
from grader.report import render_markdown
from grader.results import Report


def write_gradebook(
    path: Path, students: Sequence[str], exercises: Sequence[str], results: Sequence[StoredResult]
) -> None:
    scores = {(r.student, r.exercise): r.score for r in results}
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["student", *exercises, "total"])
        for student in students:
            row = [scores.get((student, e)) for e in exercises]
            total = sum(s for s in row if s is not None)
            writer.writerow([student, *("" if s is None else f"{s:g}" for s in row), f"{total:g}"])


def write_feedback(folder: Path, results: Sequence[StoredResult]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[StoredResult]] = collections.defaultdict(list)
    for result in results:
        by_student[result.student].append(result)
    for student, mine in by_student.items():
        reports = [Report.from_json(r.report) for r in mine]
        (folder / f"{student}.md").write_text("\n".join(render_markdown(r) for r in reports))
        (folder / f"{student}.json").write_text(
            json.dumps([r.to_json() for r in reports], indent=2)
        )


def write_summary(
    path: Path,
    results: Sequence[StoredResult],
    missing: Sequence[str],
    baselines: Sequence[str] = (),
) -> None:
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
                errored.append(f"{result.student} ({result.exercise}): {check.name}")
    lines += ["", "## Most common failed checks", ""]
    lines += [f"- {name}: {count}" for name, count in failures.most_common(10)] or ["- none"]
    lines += ["", "## Gradings that errored", ""] + ([f"- {e}" for e in errored] or ["- none"])
    lines += ["", "## Missing submissions", ""] + ([f"- {m}" for m in missing] or ["- none"])
    lines += ["", "## Baseline timings per GPU lane", ""]
    lines += [f"- {b}" for b in baselines] or ["- none timed"]
    path.write_text("\n".join(lines) + "\n")


def write_performance_scores(
    path: Path, students: Sequence[str], exercises: Sequence[str], results: Sequence[StoredResult]
) -> None:
    """The performance checks' points alone, one row per student: what a GPU batch run hands to
    Gradescope ('Upload scores') or Canvas, where the CPU-only autograder left them out."""
    points: dict[tuple[str, str], float] = {}
    for result in results:
        report = Report.from_json(result.report)
        timed = [c for c in report.checks if c.kind == "performance" and c.status != "skipped"]
        if timed:
            points[(result.student, result.exercise)] = sum(c.score for c in timed)
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["SID", *(f"{e} performance" for e in exercises)])
        for student in students:
            row = [points.get((student, e)) for e in exercises]
            writer.writerow([student, *("" if p is None else f"{p:g}" for p in row)])

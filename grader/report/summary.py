"""A batch's summary.md: scores per exercise, the commonest failures, gradings that errored
(with their first line), submissions refused (with the reason), missing ones, GPU baselines."""

from __future__ import annotations

import collections
import statistics
from collections.abc import Sequence

from grader.report.stored import Graded
from grader.results import REFUSED, Report


def _refused(result: Graded) -> bool:
    checks = result.report.get("checks", [])
    return any(REFUSED in c.get("symptoms", ()) for c in checks if isinstance(c, dict))


def _scores(results: Sequence[Graded]) -> list[str]:
    """Per exercise, the scores of what was graded; refused hand-ins (0 points, nothing run)
    are counted apart, not in the median."""
    by_exercise: dict[str, list[Graded]] = collections.defaultdict(list)
    for result in results:
        by_exercise[result.exercise].append(result)
    lines = []
    for exercise, rows in sorted(by_exercise.items()):
        refused = sum(_refused(r) for r in rows)
        scores = [r.score for r in rows if not _refused(r)]
        aside = f"; {refused} refused (0 points)" if refused else ""
        if not scores:
            lines.append(f"- {exercise}: 0 graded{aside}")
            continue
        lines.append(
            f"- {exercise}: {len(scores)} graded, median {statistics.median(scores):g}, "
            f"min {min(scores):g}, max {max(scores):g} (of {rows[0].max_score:g}){aside}"
        )
    return lines


def _not_graded(results: Sequence[Graded]) -> list[str]:
    """Per exercise, the points its gradings could not give here: not in the scores above."""
    needs_gpu: dict[str, list[float]] = collections.defaultdict(list)
    pending: dict[str, int] = collections.defaultdict(int)
    for result in results:
        report = Report.from_json(result.report)
        if report.needs_gpu:
            needs_gpu[result.exercise].append(report.needs_gpu)
        if report.pending:
            pending[result.exercise] += 1
    lines = [
        f"- {exercise}: up to {max(points):g} points of each grading need a GPU and are not in "
        f"these scores ({len(points)} grading(s)): grade them with a batch on a GPU"
        for exercise, points in sorted(needs_gpu.items())
    ]
    lines += [
        f"- {exercise}: {count} written answer(s) pending review (grader review)"
        for exercise, count in sorted(pending.items())
    ]
    return ["", "## Not graded yet", "", *lines] if lines else []


def _items(title: str, items: Sequence[str], none: str = "- none") -> list[str]:
    return ["", f"## {title}", "", *([f"- {item}" for item in items] or [none])]


def render_summary(
    results: Sequence[Graded],
    missing: Sequence[str],
    baselines: Sequence[str] = (),
    refused: Sequence[str] = (),
    skipped: Sequence[str] = (),
) -> str:
    """summary.md's text; `skipped`: the entries of the submissions directory not read, each
    with why."""
    failures: collections.Counter[str] = collections.Counter()
    errored: list[str] = []
    for result in results:
        # one line per grading and message: a kernel that errors does so in every case
        by_message: dict[str, list[str]] = {}
        for check in Report.from_json(result.report).checks:
            if check.status == "failed" and REFUSED not in check.symptoms:
                failures[f"{result.exercise}: {check.name}"] += 1
            if check.status == "error":
                first = check.message.strip().splitlines()[0][:200] if check.message.strip() else ""
                by_message.setdefault(first, []).append(check.name)
        for first, names in by_message.items():
            which = names[0] if len(names) == 1 else f"{len(names)} checks ({', '.join(names)})"
            errored.append(f"{result.student} ({result.exercise}): {which}: {first}")
    common = [f"{name}: {count}" for name, count in failures.most_common(10)]
    lines = ["# Batch summary", "", *_scores(results), *_not_graded(results)]
    lines += _items("Most common failed checks", common)
    lines += _items("Gradings that errored", errored)
    lines += _items("Submissions refused (0 points, the reason in their feedback)", refused)
    lines += _items("Missing submissions", missing)
    lines += _items("Skipped in the submissions directory (not read)", skipped)
    lines += _items("Baseline timings per GPU lane", baselines, none="- none timed")
    return "\n".join(lines) + "\n"

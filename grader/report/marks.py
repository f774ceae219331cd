"""The words, styles and point format that every renderer of a check shares."""

from __future__ import annotations

from grader.results import DESELECTED, Report

STYLE = {
    "passed": "bold green",
    "failed": "bold red",
    "skipped": "yellow",
    "error": "bold magenta",
    "pending": "cyan",
}
"""The rich style of each check status."""
MARK = {
    "passed": "PASS",
    "failed": "FAIL",
    "skipped": "SKIP",
    "error": "ERROR",
    "pending": "PENDING",
}
"""How a check status is written for people."""


def points(value: float) -> str:
    """Points as people read them: 10, not 10.0; 2.50 where there is a fraction."""
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def check_points(score: float, max_score: float, status: str) -> str:
    """A check's points: `7/10`, or `?/10` where a person has yet to review it."""
    return (
        f"?/{points(max_score)}" if status == "pending" else f"{points(score)}/{points(max_score)}"
    )


def total_points(score: float, max_score: float, pending: float, needs_gpu: float = 0.0) -> str:
    """A report's points: `85/100 points`, then what is not graded yet: `(10 pending review)`
    where a person has yet to review an answer, `(70 need a GPU)` where it ran without one."""
    total = f"{points(score)}/{points(max_score)} points"
    waiting = [f"{points(needs_gpu)} need a GPU"] if needs_gpu else []
    waiting += [f"{points(pending)} pending review"] if pending else []
    return f"{total} ({', '.join(waiting)})" if waiting else total


def verdict(report: Report) -> str:
    """PASSED or FAILED, and of what, where it is not the whole exercise: the checks -k selected
    (some checks say -k left them out), or what ran without a GPU (points wait for one). A part of
    the grading passing is not the exercise passing."""
    if not report.passed:
        return "FAILED"
    scope = []
    if any(c.message.startswith(DESELECTED) for c in report.checks):
        scope.append("the checks -k selected")
    if report.needs_gpu:
        scope.append("what ran without a GPU")
    return f"PASSED ({'; '.join(scope)})" if scope else "PASSED"

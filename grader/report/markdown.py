"""A Report as Markdown: the feedback file a batch hands each student, with the same content as
the terminal report but never the seed (it would tell the inputs of the next grading of the same
submission). Everything a submission chose is escaped (grader/text_bounds.py)."""

from __future__ import annotations

from collections.abc import Sequence

from grader.report.marks import MARK, check_points, total_points, verdict
from grader.report.profile import profile_markdown
from grader.report.sweep import sweep_markdown
from grader.results import REFUSED, REVIEWED, CheckResult, Report
from grader.text_bounds import markdown_code_block, markdown_code_span, markdown_text


def _mark(check: CheckResult) -> str:
    """A check's result in words; a hand-in refused unread (a broken zip, a link) is no
    compile failure: nothing was compiled."""
    return "REFUSED (nothing compiled)" if REFUSED in check.symptoms else MARK[check.status]


def render_markdown(report: Report) -> str:
    """The same content as the terminal report, as Markdown (feedback files for students: never
    the seed, which would tell the inputs of the next grading of the same submission)."""
    lines = [
        f"# {markdown_text(f'{report.exercise}: {report.title}')}",
        "",
        f"**{verdict(report)}**, "
        f"{total_points(report.score, report.max_score, report.pending, report.needs_gpu)}. "
        f"{markdown_code_span(report.source)} {_where(report)}.",
        "",
        "| check | result | points |",
        "|---|---|---|",
    ]
    lines += [
        f"| {markdown_text(c.name)} | {_mark(c)} | {check_points(c.score, c.max_score, c.status)} |"
        for c in report.checks
    ]
    for check in report.checks:
        if check.status != "passed" or REVIEWED in check.symptoms:
            lines += [
                "",
                f"## {markdown_text(check.name)}: {_mark(check)}",
                "",
                *markdown_code_block(check.message),
            ]
    if report.hints:
        lines += ["", "## Hints", ""]
        lines += ["- " + markdown_text(hint).replace("\n", "\n  ") for hint in report.hints]
    lines += sweep_markdown(report) + profile_markdown(report)
    return "\n".join(lines) + "\n"


def _where(report: Report) -> str:
    """Where it ran: `on NVIDIA H200 (...)`, or why nothing ran (a hand-in refused)."""
    if report.device.backend == "none":
        return f"(not run: {markdown_text(str(report.device))})"
    return f"on {markdown_text(str(report.device))}"


def nothing_graded_markdown(student: str, notes: Sequence[str]) -> str:
    """The feedback of a student the batch found nothing to grade for."""
    lines = [
        "# Nothing graded",
        "",
        f"The batch found no kernel of yours ({student}) that it could grade: every exercise "
        "is missing. Put each kernel in its exercise's folder, named as the exercise's stub "
        "is (e.g. ex1-non-square/kernel.cu), or, in a notebook, start its cell "
        "with a line naming the exercise (`// grader: ex1`); and check your hand-in with "
        "`grader export` before you upload it.",
    ]
    if notes:
        lines += ["", "What the batch found:", "", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


def feedback_markdown(reports: Sequence[Report]) -> str:
    """One student's feedback file: the Markdown of each of their reports, one after another."""
    return "\n".join(render_markdown(r) for r in reports)

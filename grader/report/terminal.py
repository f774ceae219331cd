"""A Report in the terminal, with rich: a panel with a line per check, the full message of every
check that did not pass, hints and the verdict; then the measurement tables and the chart's path.

Text from a submission (names, messages, hints) goes in as rich Text objects, never as markup."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.report.marks import MARK, STYLE, check_points, total_points, verdict
from grader.report.profile import report_profile
from grader.report.sweep import sweep_table
from grader.results import REVIEWED, Report


def _checks_table(report: Report) -> Table:
    table = Table(expand=True, box=None, padding=(0, 1))
    table.add_column("check", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("summary", ratio=1, no_wrap=True, overflow="ellipsis")
    for check in report.checks:
        table.add_row(
            Text(check.name),
            Text(MARK[check.status], style=STYLE[check.status]),
            check_points(check.score, check.max_score, check.status),
            Text(check.message.splitlines()[0] if check.message else ""),
        )
    return table


def _header(report: Report) -> list[RenderableType]:
    """Where it ran, the seed (unless the report is a student's), the stages before the checks."""
    device = f"{report.device.name}" + (
        f" ({report.device.detail})" if report.device.detail else ""
    )
    parts: list[RenderableType] = [Text(f"{report.source} on {device}", style="dim")]
    if not report.student_facing:
        parts.append(Text(f"seed {report.seed}: reproduce with --seed {report.seed}", style="dim"))
    return parts + [
        Text(f"{stage} (not counted in any time limit)", style="dim") for stage in report.stages
    ]


def _details(report: Report, verbose: bool = False) -> list[RenderableType]:
    """The full message of each check that failed or errored (of every check that ran, with
    `verbose`), skip reasons counted, hints."""
    parts: list[RenderableType] = []
    shown = ("failed", "error", "pending", "passed") if verbose else ("failed", "error", "pending")
    said: dict[tuple[str, str], list[str]] = {}  # checks that fail alike are named together
    for check in report.checks:
        if check.status in shown or REVIEWED in check.symptoms:
            said.setdefault((check.status, check.message), []).append(check.name)
    for (status, message), names in said.items():
        parts += [
            Text(""),
            Text(f"{', '.join(names)}: {MARK[status]}", style=STYLE[status]),
            Text(message),
        ]
    skip_reasons: dict[str, int] = {}
    for check in report.checks:
        if check.status == "skipped":
            skip_reasons[check.message] = skip_reasons.get(check.message, 0) + 1
    for reason, count in skip_reasons.items():
        parts += [Text(""), Text(f"{count} check(s) skipped: {reason}", style=STYLE["skipped"])]
    if report.hints:
        parts.append(Text(""))
        parts += [Text(f"hint: {hint}", style="cyan") for hint in report.hints]
    return parts


def _summary(report: Report) -> Text:
    summary = Text.assemble(
        (
            verdict(report),
            STYLE["passed" if report.passed else "failed"],
        ),
        f"  {total_points(report.score, report.max_score, report.pending, report.needs_gpu)}",
    )
    skipped = sum(1 for c in report.checks if c.status == "skipped")
    if skipped:
        summary.append(f"  ({skipped} check(s) skipped)", style="yellow")
    return summary


def render_terminal(report: Report, console: Console, verbose: bool = False) -> None:
    """A table of checks (one line each), then the full message of every check that did not pass
    (of every check that ran, with `verbose`)."""
    parts = [*_header(report), Text(""), _checks_table(report), *_details(report, verbose)]
    parts += [Text(""), _summary(report)]
    console.print(
        Panel(
            Group(*parts),
            title=escape(f"{report.exercise}: {report.title}"),
            title_align="left",
        )
    )


def print_check(
    report: Report, chart: Path | None, console: Console, verbose: bool = False
) -> None:
    """`grader check`'s whole output: the report, its sweep and profile tables, the chart's path."""
    render_terminal(report, console, verbose)
    for table in (sweep_table(report), report_profile(report)):
        if table is not None:
            console.print(table)
    if chart is not None:
        console.print(Text(f"sweep chart: {chart}"))  # a path is not markup


def print_summary_of_all(reports: list[Report], console: Console) -> None:
    """`grader check --all`'s last word: a line per exercise, and the total."""
    table = Table(title="every exercise", box=None, padding=(0, 1))
    for column in ("exercise", "result", "points", "kernel"):
        table.add_column(column, justify="right" if column == "points" else "left")
    for report in reports:
        status = "passed" if report.passed else "failed"
        table.add_row(
            Text(f"{report.exercise}: {report.title}"),
            Text(verdict(report), style=STYLE[status]),
            total_points(report.score, report.max_score, report.pending, report.needs_gpu),
            Text(report.source),
        )
    total = sum(r.score for r in reports)
    most = sum(r.max_score for r in reports)
    pending = sum(r.pending for r in reports)
    needs_gpu = sum(r.needs_gpu for r in reports)
    summed = total_points(total, most, pending, needs_gpu)
    table.add_row(Text("total", style="bold"), Text(""), summed, "")
    console.print(table)

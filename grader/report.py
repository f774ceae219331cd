"""Rendering a Report for people (rich, in the terminal) and for programs (JSON).
The only module that formats text for the terminal."""

from __future__ import annotations

import json

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.profiling.metrics import METRICS, PROFILE_CHECK, from_figures
from grader.results import Report

_STYLE = {
    "passed": "bold green",
    "failed": "bold red",
    "skipped": "yellow",
    "error": "bold magenta",
}
_MARK = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP", "error": "ERROR"}


def _points(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2)


def render_terminal(report: Report, console: Console) -> None:
    """A table of checks (one line each), then the full message of every check that did not pass."""
    table = Table(expand=True, box=None, padding=(0, 1))
    table.add_column("check", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("summary", ratio=1, no_wrap=True, overflow="ellipsis")
    for check in report.checks:
        table.add_row(
            check.name,
            Text(_MARK[check.status], style=_STYLE[check.status]),
            f"{_points(check.score)}/{_points(check.max_score)}",
            check.message.splitlines()[0] if check.message else "",
        )
    device = f"{report.device.name}" + (
        f" ({report.device.detail})" if report.device.detail else ""
    )
    parts: list[RenderableType] = [
        Text(f"{report.source} on {device}", style="dim"),
        Text(f"seed {report.seed}: reproduce with --seed {report.seed}", style="dim"),
        Text(""),
        table,
    ]
    for check in report.checks:
        if check.status in ("failed", "error"):
            parts += [
                Text(""),
                Text(f"{check.name}: {_MARK[check.status]}", style=_STYLE[check.status]),
            ]
            parts.append(Text(check.message))
    skip_reasons: dict[str, int] = {}
    for check in report.checks:
        if check.status == "skipped":
            skip_reasons[check.message] = skip_reasons.get(check.message, 0) + 1
    for reason, count in skip_reasons.items():
        parts += [Text(""), Text(f"{count} check(s) skipped: {reason}", style=_STYLE["skipped"])]
    if report.hints:
        parts.append(Text(""))
        parts += [Text(f"hint: {hint}", style="cyan") for hint in report.hints]
    verdict = "PASSED" if report.passed else "FAILED"
    summary = Text.assemble(
        (verdict, _STYLE["passed" if report.passed else "failed"]),
        f"  {_points(report.score)}/{_points(report.max_score)} points",
    )
    skipped = sum(1 for c in report.checks if c.status == "skipped")
    if skipped:
        summary.append(f"  ({skipped} check(s) skipped)", style="yellow")
    parts += [Text(""), summary]
    console.print(
        Panel(Group(*parts), title=f"{report.exercise}: {report.title}", title_align="left")
    )


def render_markdown(report: Report) -> str:
    """The same content as the terminal report, as Markdown (feedback files for students)."""
    verdict = "PASSED" if report.passed else "FAILED"
    lines = [
        f"# {report.exercise}: {report.title}",
        "",
        f"**{verdict}**, {_points(report.score)}/{_points(report.max_score)} points. "
        f"`{report.source}` on {report.device}; seed {report.seed}.",
        "",
        "| check | result | points |",
        "|---|---|---|",
    ]
    lines += [
        f"| {c.name} | {_MARK[c.status]} | {_points(c.score)}/{_points(c.max_score)} |"
        for c in report.checks
    ]
    for check in report.checks:
        if check.status != "passed":
            lines += [
                "",
                f"## {check.name}: {_MARK[check.status]}",
                "",
                "```",
                check.message,
                "```",
            ]
    if report.hints:
        lines += ["", "## Hints", ""] + [f"- {hint}" for hint in report.hints]
    return "\n".join(lines) + "\n"


def profile_table(figures: dict[str, dict[str, float]], n: int) -> Table:
    """Nsight Compute's figures side by side (a column per kernel) and naive / tiled."""
    labels = [label for label in ("naive", "tiled", "yours") if label in figures]
    table = Table(title=f"Nsight Compute, n = {n} (--clock-control none)", title_justify="left")
    table.add_column("metric (ncu's name below)", overflow="fold")
    for label in labels:
        table.add_column(label, justify="right")
    table.add_column("naive / tiled", justify="right")
    for metric in METRICS:
        values = [figures[label][metric.key] for label in labels]
        naive, tiled = figures["naive"][metric.key], figures["tiled"][metric.key]
        ratio = f"{naive / tiled:.2f}x" if tiled else "-"
        table.add_row(
            Text.assemble(f"{metric.label} ({metric.unit})\n", (metric.ncu_name, "dim")),
            *(f"{value:,.1f}" for value in values),
            ratio,
        )
    return table


def report_profile(report: Report) -> Table | None:
    """The table of a report's profile check (None where nothing was profiled)."""
    check = next((c for c in report.checks if c.name == PROFILE_CHECK), None)
    if check is None or check.status != "passed":
        return None
    return profile_table(from_figures(check.figures), int(check.figures.get("n", 0)))

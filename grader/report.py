"""Rendering a Report for people (rich, in the terminal) and for programs (JSON).
The only module that formats text for the terminal.

Text from a submission (names, messages, hints) is never read as markup: it goes into the
terminal as rich Text objects and into Markdown escaped (grader/text_bounds.py)."""

from __future__ import annotations

import json

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.profiling.metrics import METRICS, PROFILE_CHECK, from_figures
from grader.results import Report
from grader.text_bounds import markdown_code_block, markdown_code_span, markdown_text

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
            Text(check.name),
            Text(_MARK[check.status], style=_STYLE[check.status]),
            f"{_points(check.score)}/{_points(check.max_score)}",
            Text(check.message.splitlines()[0] if check.message else ""),
        )
    device = f"{report.device.name}" + (
        f" ({report.device.detail})" if report.device.detail else ""
    )
    parts: list[RenderableType] = [Text(f"{report.source} on {device}", style="dim")]
    if not report.student_facing:
        parts.append(Text(f"seed {report.seed}: reproduce with --seed {report.seed}", style="dim"))
    parts += [
        *[Text(f"{stage} (not counted in any time limit)", style="dim") for stage in report.stages],
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
        Panel(
            Group(*parts),
            title=escape(f"{report.exercise}: {report.title}"),
            title_align="left",
        )
    )


def render_markdown(report: Report) -> str:
    """The same content as the terminal report, as Markdown (feedback files for students: never
    the seed, which would tell the inputs of the next grading of the same submission)."""
    verdict = "PASSED" if report.passed else "FAILED"
    lines = [
        f"# {markdown_text(f'{report.exercise}: {report.title}')}",
        "",
        f"**{verdict}**, {_points(report.score)}/{_points(report.max_score)} points. "
        f"{markdown_code_span(report.source)} on {markdown_text(str(report.device))}.",
        "",
        "| check | result | points |",
        "|---|---|---|",
    ]
    lines += [
        f"| {markdown_text(c.name)} | {_MARK[c.status]} | "
        f"{_points(c.score)}/{_points(c.max_score)} |"
        for c in report.checks
    ]
    for check in report.checks:
        if check.status != "passed":
            lines += [
                "",
                f"## {markdown_text(check.name)}: {_MARK[check.status]}",
                "",
                *markdown_code_block(check.message),
            ]
    if report.hints:
        lines += ["", "## Hints", ""]
        lines += ["- " + markdown_text(hint).replace("\n", "\n  ") for hint in report.hints]
    lines += _measurements_markdown(report)
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


SWEEP_CHECK = "sweep timing"


def sweep_rows(report: Report) -> list[tuple[int, float, float]]:
    """(tile size, ms, GFLOP/s) of a report's passed sweep timing, by tile size ([] if none)."""
    check = next((c for c in report.checks if c.name == SWEEP_CHECK), None)
    if check is None or check.status != "passed":
        return []
    sizes = sorted(int(k.removeprefix("ms_")) for k in check.figures if k.startswith("ms_"))
    return [(v, check.figures[f"ms_{v}"], check.figures[f"gflops_{v}"]) for v in sizes]


def sweep_table(report: Report) -> Table | None:
    """The tile-size sweep as a table: time, GFLOP/s and time relative to the fastest."""
    rows = sweep_rows(report)
    if not rows:
        return None
    best = min(ms for _, ms, _ in rows)
    table = Table(title=f"Tile-size sweep on {report.device.name}", title_justify="left")
    for name in ("TILE_SIZE", "time (ms)", "GFLOP/s", "vs fastest"):
        table.add_column(name, justify="right")
    for value, ms, gflops in rows:
        table.add_row(str(value), f"{ms:.3f}", f"{gflops:,.0f}", f"{ms / best:.2f}x")
    return table


def _measurements_markdown(report: Report) -> list[str]:
    lines: list[str] = []
    rows = sweep_rows(report)
    if rows:
        lines += [
            "",
            "## Tile-size sweep",
            "",
            "| TILE_SIZE | time (ms) | GFLOP/s |",
            "|---|---|---|",
        ]
        lines += [f"| {v} | {ms:.3f} | {gflops:,.0f} |" for v, ms, gflops in rows]
    check = next((c for c in report.checks if c.name == PROFILE_CHECK), None)
    if check is not None and check.status == "passed":
        figures = from_figures(check.figures)
        labels = [label for label in ("naive", "tiled", "yours") if label in figures]
        lines += [
            "",
            f"## Nsight Compute, n = {int(check.figures.get('n', 0))}",
            "",
            "| metric | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(labels),
        ]
        lines += [
            f"| {m.label} ({m.unit}) `{m.ncu_name}` | "
            + " | ".join(f"{figures[label][m.key]:,.1f}" for label in labels)
            + " |"
            for m in METRICS
        ]
    return lines

"""Nsight Compute's figures for people: a terminal table (a column per kernel, and naive /
tiled) for `grader profile` and for a Report's profile check, and a Markdown table for feedback."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.profiling.metrics import METRICS, PROFILE_CHECK, from_figures
from grader.results import Report

_LABELS = ("naive", "tiled", "yours")


def profile_table(figures: dict[str, dict[str, float]], n: int) -> Table:
    """Nsight Compute's figures side by side (a column per kernel) and naive / tiled."""
    labels = [label for label in _LABELS if label in figures]
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


def _profiled(report: Report) -> tuple[dict[str, dict[str, float]], int] | None:
    """The figures per kernel and n of a report's passed profile check (None if none)."""
    check = next((c for c in report.checks if c.name == PROFILE_CHECK), None)
    if check is None or check.status != "passed":
        return None
    return from_figures(check.figures), int(check.figures.get("n", 0))


def report_profile(report: Report) -> Table | None:
    """The table of a report's profile check (None where nothing was profiled)."""
    profiled = _profiled(report)
    return None if profiled is None else profile_table(*profiled)


def profile_markdown(report: Report) -> list[str]:
    """A report's profile as a Markdown section's lines ([] where nothing was profiled)."""
    profiled = _profiled(report)
    if profiled is None:
        return []
    figures, n = profiled
    labels = [label for label in _LABELS if label in figures]
    lines = [
        "",
        f"## Nsight Compute, n = {n}",
        "",
        "| metric | " + " | ".join(labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    return lines + [
        f"| {m.label} ({m.unit}) `{m.ncu_name}` | "
        + " | ".join(f"{figures[label][m.key]:,.1f}" for label in labels)
        + " |"
        for m in METRICS
    ]


def print_profiling(labels: Sequence[str], n: int, console: Console) -> None:
    """`grader profile`'s first line: which kernels ncu is about to profile, at what size."""
    console.print(f"profiling {', '.join(labels)} with ncu at n = {n}")

"""The tile-size sweep of a Report (its `sweep timing` check) for people: a terminal table and
a Markdown table, from the same rows."""

from __future__ import annotations

from rich.table import Table

from grader.results import Report

SWEEP_CHECK = "sweep timing"
"""The name of the check whose figures hold the sweep's times (ms_V, gflops_V per value V)."""


def sweep_rows(report: Report) -> list[tuple[int, float, float]]:
    """(tile size, ms, GFLOP/s) of a report's passed sweep timing, by tile size ([] if none)."""
    check = next((c for c in report.checks if c.name == SWEEP_CHECK), None)
    if check is None or check.status != "passed":
        return []
    sizes = sorted(int(k.removeprefix("ms_")) for k in check.figures if k.startswith("ms_"))
    return [(v, check.figures[f"ms_{v}"], check.figures[f"gflops_{v}"]) for v in sizes]


def sweep_figures(report: Report) -> dict[int, float]:
    """GFLOP/s per tile size from a report's sweep timing check ({} when it was not timed)."""
    return {value: gflops for value, _, gflops in sweep_rows(report)}


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


def sweep_markdown(report: Report) -> list[str]:
    """The sweep as a Markdown section's lines ([] when it was not timed)."""
    rows = sweep_rows(report)
    if not rows:
        return []
    lines = ["", "## Tile-size sweep", "", "| TILE_SIZE | time (ms) | GFLOP/s |", "|---|---|---|"]
    return lines + [f"| {v} | {ms:.3f} | {gflops:,.0f} |" for v, ms, gflops in rows]

"""The tile-size sweep as a table, in the terminal and in the feedback."""

from __future__ import annotations

from rich.console import Console

from grader.report.markdown import render_markdown
from grader.report.sweep import sweep_figures, sweep_table
from tests.report.reports import sweep_report


def test_the_sweep_is_a_table_in_the_terminal_and_in_the_feedback() -> None:
    table = sweep_table(sweep_report())
    assert table is not None
    console = Console(width=100, record=True)
    console.print(table)
    text = console.export_text()
    assert "Tile-size sweep on NVIDIA H200" in text
    assert "1.900" in text and "9,042" in text and "1.79x" in text  # 3.402 / 1.9
    markdown = render_markdown(sweep_report())
    assert "## Tile-size sweep" in markdown and "| 32 | 1.900 | 9,042 |" in markdown
    assert sweep_table(sweep_report("skipped")) is None


def test_a_sweep_not_timed_shows_nothing() -> None:
    assert sweep_figures(sweep_report("skipped")) == {}
    assert "## Tile-size sweep" not in render_markdown(sweep_report("skipped"))
    assert sweep_figures(sweep_report()) == {8: 5050.0, 16: 8014.0, 32: 9042.0}

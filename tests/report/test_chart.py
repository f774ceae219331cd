"""The tile-size sweep as a PNG bar chart, written next to the kernel."""

from __future__ import annotations

from pathlib import Path

from grader.report.chart import write_sweep_chart
from tests.report.reports import sweep_report


def test_the_sweep_chart_is_a_png_next_to_the_report(tmp_path: Path) -> None:
    path = write_sweep_chart(sweep_report(), tmp_path / "grader-ex2-sweep.png")
    assert path == tmp_path / "grader-ex2-sweep.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_chart_without_a_timed_sweep(tmp_path: Path) -> None:
    assert write_sweep_chart(sweep_report("skipped"), tmp_path / "c.png") is None
    assert not (tmp_path / "c.png").exists()

"""Nsight Compute's figures as tables: in the terminal (grader profile) and in the feedback."""

from __future__ import annotations

from rich.console import Console

from grader.profiling.metrics import parse_ncu_csv, to_figures
from grader.report.markdown import render_markdown
from grader.report.profile import report_profile
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT


def _report() -> Report:
    profiles = parse_ncu_csv(
        (ROOT / "tests/data/ncu-h200-n1024.csv").read_text(), ["naive", "tiled"]
    )
    figures = {**to_figures(profiles), "n": 1024.0}
    check = CheckResult("ncu profile", "performance", "passed", 0, 0, "", figures=figures)
    return Report("ex3", "Profiling", "kernel.cu", 1, DeviceInfo("gpu", "NVIDIA H200"), [check])


def test_the_profile_is_a_table_in_the_feedback() -> None:
    markdown = render_markdown(_report())
    assert "## Nsight Compute, n = 1024" in markdown
    assert (
        "| L1 global-load bytes (MB) `l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum` "
        "| 4,295.0 | 536.9 |" in markdown
    )


def test_the_profile_is_a_table_in_the_terminal_with_the_ratio() -> None:
    table = report_profile(_report())
    assert table is not None
    console = Console(width=120, record=True)
    console.print(table)
    text = console.export_text()
    assert "Nsight Compute, n = 1024 (--clock-control none)" in text
    assert "4,295.0" in text and "536.9" in text and "8.00x" in text

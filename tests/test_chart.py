from __future__ import annotations

from pathlib import Path

from grader.chart import write_sweep_chart
from grader.results import CheckResult, DeviceInfo, Report


def _report(status: str = "passed") -> Report:
    figures = {"gflops_8": 5050.0, "gflops_16": 8014.0, "gflops_32": 9042.0}
    figures |= {"ms_8": 3.402, "ms_16": 2.144, "ms_32": 1.9}
    sweep = CheckResult("sweep timing", "performance", status, 20, 20, "", figures=figures)  # type: ignore[arg-type]
    return Report(
        "ex2", "Tile-size sweep", "kernel.cu", 1, DeviceInfo("gpu", "NVIDIA H200"), [sweep]
    )


def test_the_sweep_chart_is_a_png_next_to_the_report(tmp_path: Path) -> None:
    path = write_sweep_chart(_report(), tmp_path / "grader-ex2-sweep.png")
    assert path == tmp_path / "grader-ex2-sweep.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_chart_without_a_timed_sweep(tmp_path: Path) -> None:
    assert write_sweep_chart(_report("skipped"), tmp_path / "c.png") is None
    assert not (tmp_path / "c.png").exists()


def test_the_sweep_is_a_table_in_the_terminal_and_in_the_feedback() -> None:
    from rich.console import Console

    from grader.report import render_markdown, sweep_table

    table = sweep_table(_report())
    assert table is not None
    console = Console(width=100, record=True)
    console.print(table)
    text = console.export_text()
    assert "Tile-size sweep on NVIDIA H200" in text
    assert "1.900" in text and "9,042" in text and "1.79x" in text  # 3.402 / 1.9
    markdown = render_markdown(_report())
    assert "## Tile-size sweep" in markdown and "| 32 | 1.900 | 9,042 |" in markdown
    assert sweep_table(_report("skipped")) is None


def test_the_profile_is_a_table_in_the_feedback() -> None:
    from grader.profiling.metrics import parse_ncu_csv, to_figures
    from grader.report import render_markdown
    from tests.conftest import ROOT

    profiles = parse_ncu_csv(
        (ROOT / "tests/data/ncu-h200-n1024.csv").read_text(), ["naive", "tiled"]
    )
    figures = {**to_figures(profiles), "n": 1024.0}
    check = CheckResult("ncu profile", "performance", "passed", 0, 0, "", figures=figures)
    report = Report("ex3", "Profiling", "kernel.cu", 1, DeviceInfo("gpu", "NVIDIA H200"), [check])
    markdown = render_markdown(report)
    assert "## Nsight Compute, n = 1024" in markdown
    assert (
        "| L1 global-load bytes (MB) `l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum` "
        "| 4,295.0 | 536.9 |" in markdown
    )

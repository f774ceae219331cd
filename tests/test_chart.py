from __future__ import annotations

from pathlib import Path

from grader.chart import write_sweep_chart
from grader.results import CheckResult, DeviceInfo, Report


def _report(status: str = "passed") -> Report:
    figures = {"gflops_8": 5050.0, "gflops_16": 8014.0, "gflops_32": 9042.0, "ms_8": 3.4}
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

"""The tile-size sweep as a bar chart (PNG), for people: GFLOP/s per tile size."""

from __future__ import annotations

from pathlib import Path

from grader.report.sweep import sweep_figures
from grader.results import Report


def write_sweep_chart(report: Report, path: Path) -> Path | None:
    """Write the chart to `path` (never over a file the grader did not write); None if there is
    nothing to draw."""
    figures = sweep_figures(report)
    if not figures:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(figures)
    figure, axes = plt.subplots(figsize=(5, 3.2), dpi=120)
    bars = axes.bar([str(s) for s in sizes], [figures[s] for s in sizes], color="#4a7ab5")
    axes.bar_label(bars, labels=[f"{figures[s]:,.0f}" for s in sizes], fontsize=8)
    axes.set_xlabel("TILE_SIZE")
    axes.set_ylabel("GFLOP/s")
    axes.set_title(f"{report.exercise}: tiled GEMM on {report.device.name}", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path

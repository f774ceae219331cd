"""`grader calibrate`'s table: per exercise, the GPU, the speedups measured, their median and
spread, and the thresholds proposed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rich.table import Table


class Calibrated(Protocol):
    """One exercise's calibration, as the table reads it (grader/calibration.py: Calibration)."""

    @property
    def exercise(self) -> str: ...
    @property
    def gpu(self) -> str: ...
    @property
    def speedups(self) -> list[float]: ...
    @property
    def median(self) -> float: ...
    @property
    def spread(self) -> float: ...
    @property
    def minimum(self) -> float: ...
    @property
    def target(self) -> float: ...


def calibration_table(calibrations: Sequence[Calibrated], runs: int) -> Table:
    table = Table(title=f"grader calibrate ({runs} runs each)")
    for column in ("exercise", "GPU", "speedups", "median", "spread", "proposed min", "target"):
        table.add_column(column)
    for c in calibrations:
        table.add_row(
            c.exercise,
            c.gpu,
            " ".join(f"{s:.3f}" for s in c.speedups),
            f"{c.median:.3f}",
            f"{100 * c.spread:.2f}%",
            f"{c.minimum:.2f}",
            f"{c.target:.2f}",
        )
    return table

"""Calibrating an exercise's speedup thresholds on this GPU: time the reference solution several
times, each in its own grading run, propose a minimum and a target with a safety margin, and
record them in the spec under this GPU's name (comments and layout of the YAML kept)."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from grader.course import Exercise
from grader.errors import GraderError
from grader.grading import grade
from grader.source import read_source

# The proposal: fail below 92% of the median speedup a correct reference reaches here, all points
# from 98% of it. A well-built measurement repeats within a fraction of a percent on one GPU
# (0.03% on the H200), so a right kernel is far from the floor, while a kernel that does not
# learn the lesson (no faster than the baseline) is far below it.
MIN_FRACTION = 0.92
TARGET_FRACTION = 0.98


@dataclass(frozen=True)
class Calibration:
    """What the runs of one exercise gave, and the thresholds proposed from them."""

    exercise: str
    gpu: str
    speedups: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.speedups)

    @property
    def spread(self) -> float:
        return (max(self.speedups) - min(self.speedups)) / self.median

    @property
    def minimum(self) -> float:
        return round(self.median * MIN_FRACTION, 2)

    @property
    def target(self) -> float:
        return round(self.median * TARGET_FRACTION, 2)


def calibrate_exercise(exercise: Exercise, runs: int) -> Calibration:
    speedups: list[float] = []
    gpu = ""
    for _ in range(runs):
        report = grade(exercise, read_source(exercise.solution), backend="gpu")
        if report.device.backend != "gpu":
            raise GraderError(f"calibrate needs a GPU: {report.device.detail}")
        gpu = report.device.name
        check = next(c for c in report.checks if c.kind == "performance")
        if "speedup" not in check.figures:
            raise GraderError(f"{exercise.id}: the solution was not timed: {check.message}")
        speedups.append(check.figures["speedup"])
    return Calibration(exercise.id, gpu, speedups)


def record(exercise: Exercise, calibration: Calibration) -> None:
    """Write the proposed thresholds into the exercise's spec under the GPU's name."""
    from ruamel.yaml import YAML

    note = (
        f"grader calibrate {time.strftime('%Y-%m-%d')}: reference solution median "
        f"{calibration.median:.3f}x over {len(calibration.speedups)} runs "
        f"(spread {100 * calibration.spread:.2f}%)"
    )
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)  # the course's own layout
    yaml.width = 100
    path = exercise.directory / "spec.yaml"
    data = yaml.load(path.read_text())
    gpus = data["performance"].setdefault("gpus", {})
    # updated in place: comments (those after the entry too) stay where they were
    entry = gpus.setdefault(calibration.gpu, {})
    entry["min_speedup"] = calibration.minimum
    entry["target_speedup"] = calibration.target
    entry["note"] = note
    with path.open("w") as out:
        yaml.dump(data, out)

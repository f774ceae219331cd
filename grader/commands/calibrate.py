"""grader calibrate: time each exercise's reference solution on this GPU several times, each in its
own grading run, and propose speedup thresholds with a safety margin; --write records them in
the spec under this GPU's name (comments and layout of the YAML kept)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK, GraderError
from grader.grading import grade
from grader.source import read_source

# The proposal: fail below 92% of the median speedup a correct reference reaches here, all points
# from 98% of it. A well-built measurement repeats within a fraction of a percent on one GPU
# (0.03% on the H200), so a right kernel is far from the floor, while a kernel that does not
# learn the lesson (no faster than the baseline) is far below it.
MIN_FRACTION = 0.92
TARGET_FRACTION = 0.98


def calibrate_exercise(exercise: Exercise, runs: int) -> tuple[str, list[float]]:
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
    return gpu, speedups


def _write(exercise: Exercise, gpu: str, minimum: float, target: float, note: str) -> None:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)  # the course's own layout
    yaml.width = 100
    path = exercise.directory / "spec.yaml"
    data = yaml.load(path.read_text())
    gpus = data["performance"].setdefault("gpus", {})
    gpus[gpu] = {"min_speedup": minimum, "target_speedup": target, "note": note}
    with path.open("w") as out:
        yaml.dump(data, out)


def run(course: Course, keys: Sequence[str], runs: int, write: bool) -> int:
    chosen = [course.find(k) for k in keys] if keys else list(course.exercises)
    timed = [e for e in chosen if e.spec.performance is not None]
    if not timed:
        raise GraderError("none of these exercises has a performance check")
    console = Console()
    table = Table(title=f"grader calibrate ({runs} runs each)")
    for column in ("exercise", "GPU", "speedups", "median", "spread", "proposed min", "target"):
        table.add_column(column)
    for exercise in timed:
        with console.status(f"timing {exercise.id} x{runs}..."):
            gpu, speedups = calibrate_exercise(exercise, runs)
        median = statistics.median(speedups)
        spread = (max(speedups) - min(speedups)) / median
        minimum = round(median * MIN_FRACTION, 2)
        target = round(median * TARGET_FRACTION, 2)
        table.add_row(
            exercise.id,
            gpu,
            " ".join(f"{s:.3f}" for s in speedups),
            f"{median:.3f}",
            f"{100 * spread:.2f}%",
            f"{minimum:.2f}",
            f"{target:.2f}",
        )
        if write:
            note = (
                f"grader calibrate {time.strftime('%Y-%m-%d')}: reference solution median "
                f"{median:.3f}x over {runs} runs (spread {100 * spread:.2f}%)"
            )
            _write(exercise, gpu, minimum, target, note)
    console.print(table)
    if write:
        console.print("written to the specs under this GPU's name")
    return EXIT_OK if timed else EXIT_CHECK_FAILED

"""`grader calibrate [EX...] [--runs N] [--write]`: time each exercise's reference solution on
this GPU, propose speedup thresholds, and with --write record them in the specs
(grader/calibration.py)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from grader.calibration import Calibration, calibrate_exercise, record
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.calibration import calibration_table


def run(*, course: Course, keys: Sequence[str], runs: int, write: bool) -> int:
    chosen = [course.find(k) for k in keys] if keys else list(course.exercises)
    timed = [e for e in chosen if e.spec.performance is not None]
    if not timed:
        raise GraderError("none of these exercises has a performance check")
    console = Console()
    calibrations: list[Calibration] = []
    for exercise in timed:
        with console.status(f"timing {exercise.id} x{runs}..."):
            calibration = calibrate_exercise(exercise, runs)
        calibrations.append(calibration)
        if write:
            record(exercise, calibration)
    console.print(calibration_table(calibrations, runs))
    if write:
        console.print("written to the specs under this GPU's name")
    return EXIT_OK

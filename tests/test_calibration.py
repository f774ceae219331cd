"""Calibration: thresholds proposed from the solution's measured speedups, recorded in the spec
under the GPU's name with the spec's comments and layout kept."""

from __future__ import annotations

from pathlib import Path

from grader.calibration import Calibration, record
from grader.course import load_course


def test_the_proposal_is_a_margin_under_the_median_speedup() -> None:
    calibration = Calibration("ex4", "NVIDIA H200", [1.87, 1.88, 1.90])
    assert calibration.median == 1.88
    assert (calibration.minimum, calibration.target) == (1.73, 1.84)
    assert round(calibration.spread, 4) == round(0.03 / 1.88, 4)


def test_record_keeps_this_gpus_thresholds_and_the_comments(course_copy: Path) -> None:
    exercise = load_course(course_copy).find("ex4")
    before = (exercise.directory / "spec.yaml").read_text()
    record(exercise, Calibration("ex4", "NVIDIA H200", [1.87, 1.88, 1.90]))
    spec_text = (exercise.directory / "spec.yaml").read_text()
    # every comment kept, the one after the replaced entry too
    comments = [line for line in before.splitlines() if line.lstrip().startswith("#")]
    assert comments == [line for line in spec_text.splitlines() if line.lstrip().startswith("#")]
    reloaded = load_course(course_copy).find("ex4").spec.performance
    assert reloaded is not None
    entry = reloaded.gpus["NVIDIA H200"]
    assert (entry.min_speedup, entry.target_speedup) == (1.73, 1.84)
    assert entry.note.startswith("grader calibrate ")
    assert entry.note.endswith(": reference solution median 1.880x over 3 runs (spread 1.60%)")
    assert reloaded.default.min_speedup == 1.3

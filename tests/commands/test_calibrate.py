from __future__ import annotations

from pathlib import Path

from grader.commands.calibrate import _write
from grader.course import load_course


def test_write_records_this_gpus_thresholds_and_keeps_the_comments(course_copy: Path) -> None:
    exercise = load_course(course_copy).find("ex4")
    _write(exercise, "NVIDIA H200", 1.73, 1.84, "grader calibrate: median 1.881x")
    spec_text = (exercise.directory / "spec.yaml").read_text()
    assert "# Timed on the GPU against the tiled kernel" in spec_text
    reloaded = load_course(course_copy).find("ex4").spec.performance
    assert reloaded is not None
    entry = reloaded.gpus["NVIDIA H200"]
    assert (entry.min_speedup, entry.target_speedup) == (1.73, 1.84)
    assert entry.note == "grader calibrate: median 1.881x"
    assert reloaded.default.min_speedup == 1.3

"""`grader export OUT.zip`: the hand-in zip of every exercise (or those named), read back as
batch grading and Gradescope will read it (grader/batch/export.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.export import export
from grader.course import Course
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK
from grader.report.notices import export_lines


def run(*, course: Course, target: Path, exercises: Sequence[str] = ()) -> int:
    """Exit 0 when every exercise's kernel is in the zip, else 1 (the zip is written anyway)."""
    chosen = [course.find(k) for k in exercises] if exercises else list(course.exercises)
    found = export(chosen, target)
    rows = [(e.exercise, e.files, e.found, e.problem) for e in found]
    for line in export_lines(target, rows):
        print(line)
    return EXIT_OK if all(e.found for e in found) else EXIT_CHECK_FAILED

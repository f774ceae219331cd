"""`grader gradescope-package ZIP`: build the Gradescope autograder zip (never over a file)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.gradescope import write_package
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.notices import package_written


def run(*, course: Course, exercises: Sequence[str] = (), target: Path) -> int:
    ids = [course.find(k).id for k in exercises] if exercises else [e.id for e in course.exercises]
    if target.exists():
        raise GraderError(f"{target} exists: choose another path (nothing is overwritten)")
    write_package(course.root, target, ids)
    print(package_written(target, ids))
    return EXIT_OK

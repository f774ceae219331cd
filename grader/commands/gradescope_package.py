"""`grader gradescope-package ZIP`: build the Gradescope autograder zip (never over a file): the
running grader's own source, the course's files from --course (or the course found)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from grader.batch.gradescope import grader_source, write_package
from grader.batch.stubs import stub_warnings
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.notices import package_written

SAME = (
    "the package ships the solution as the students' stub: restore the stub (e.g. git checkout "
    "-- exercises) and build the package again unless that is meant"
)
CHANGED = (
    "the package ships them as they are now: commit them, or restore them (git checkout -- "
    "exercises) and build the package again"
)


def run(*, course: Course, exercises: Sequence[str] = (), target: Path) -> int:
    ids = [course.find(k).id for k in exercises] if exercises else [e.id for e in course.exercises]
    if target.exists():
        raise GraderError(f"{target} exists: choose another path (nothing is overwritten)")
    source = grader_source()
    chosen = [course.find(i) for i in ids]
    for line in stub_warnings(course.root, chosen, ["exercises"], SAME, CHANGED):
        print(line, file=sys.stderr)
    write_package(course.root, target, ids, source)
    print(package_written(target, ids, source, course.root))
    return EXIT_OK

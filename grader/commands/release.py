"""`grader release DIR`: a student copy of the course, everything but solutions/, into a new or
empty directory."""

from __future__ import annotations

from pathlib import Path

from grader.batch.gradescope import grader_source, write_release
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.notices import release_written
from grader.report.student_readme import render_student_readme


def run(*, course: Course, target: Path) -> int:
    if target.exists() and any(target.iterdir()):
        raise GraderError(f"{target} is not empty: choose an empty or new directory")
    source = grader_source()
    write_release(course.root, target, source)
    # the students' README, not the instructors' (batches, secrets, Gradescope)
    (target / "README.md").write_text(render_student_readme(course))
    print(release_written(target))
    return EXIT_OK

"""`grader release DIR`: a student copy of the course, everything but solutions/, into a new or
empty directory."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.batch.gradescope import grader_source, write_release
from grader.batch.stubs import solutions_as_stubs, stub_warnings
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.notices import release_written
from grader.report.student_readme import render_student_readme

CHANGED = "the release ships exercises/ as it is now: the stubs and answers templates students get"


def run(*, course: Course, target: Path) -> int:
    if target.exists() and any(target.iterdir()):
        raise GraderError(f"{target} is not empty: choose an empty or new directory")
    source = grader_source()
    leaked = solutions_as_stubs(course.root, course.exercises)
    if leaked:
        raise GraderError(
            f"{leaked[0]} is byte for byte its solution ({len(leaked)} such stub(s)): the release "
            "would give students the answer; restore the stubs (e.g. git checkout -- exercises); "
            "nothing written"
        )
    for line in stub_warnings(course.root, [], ["exercises"], "", CHANGED):
        print(line, file=sys.stderr)
    write_release(course.root, target, source)
    # the students' README, not the instructors' (batches, secrets, Gradescope)
    (target / "README.md").write_text(render_student_readme(course))
    print(release_written(target))
    return EXIT_OK

"""`grader list`: the course's exercises."""

from __future__ import annotations

from rich.console import Console

from grader.course import Course
from grader.errors import EXIT_OK
from grader.report.course_table import course_table


def run(*, course: Course) -> int:
    Console().print(course_table(course))
    return EXIT_OK

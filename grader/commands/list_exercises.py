from __future__ import annotations

from rich.console import Console
from rich.table import Table

from grader.course import Course
from grader.errors import EXIT_OK


def run(course: Course) -> int:
    table = Table(title=course.title)
    for column in ("id", "directory", "title", "points", "cases"):
        table.add_column(column, no_wrap=column != "title")
    for exercise in course.exercises:
        table.add_row(
            exercise.id,
            exercise.dir_name,
            exercise.title,
            str(exercise.points),
            str(len(exercise.spec.correctness.cases)),
        )
    Console().print(table)
    return EXIT_OK

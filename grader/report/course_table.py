"""`grader list`: the course's exercises as a table (id, directory, title, points, cases: the
correctness checks graded, each case once per tile size where the exercise sweeps)."""

from __future__ import annotations

from rich.table import Table

from grader.checks.registry import plan
from grader.course import Course


def course_table(course: Course) -> Table:
    table = Table(title=course.title)
    for column in ("id", "directory", "title", "points", "cases"):
        table.add_column(column, no_wrap=column != "title")
    for exercise in course.exercises:
        table.add_row(
            exercise.id,
            exercise.dir_name,
            exercise.title,
            str(exercise.points),
            str(sum(1 for p in plan(exercise.spec) if p.kind == "correctness")),
        )
    return table

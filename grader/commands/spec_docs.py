"""`grader spec-docs`: print the course.yaml / spec.yaml reference (Markdown, docs/spec.md);
with --write, write it there and render each exercise README's points from its spec."""

from __future__ import annotations

from grader.course import Course
from grader.errors import EXIT_OK
from grader.report.points import with_points
from grader.spec_docs import render


def run(*, course: Course | None = None) -> int:
    """Print the reference; given the course (--write), write it and the READMEs' points."""
    if course is None:
        print(render(), end="")
        return EXIT_OK
    docs = course.root / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "spec.md").write_text(render())
    for exercise in course.exercises:
        readme = exercise.directory / "README.md"
        if readme.is_file():
            text = readme.read_text()
            updated = with_points(text, exercise.spec)
            if updated != text:
                readme.write_text(updated)
                print(f"wrote {readme}")
    return EXIT_OK

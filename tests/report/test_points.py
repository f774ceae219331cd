"""Points come from the spec alone: every exercise README shows the block rendered from it, and
`grader spec-docs --write` renders it again when the spec changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.course import load_course
from grader.report.points import END, START, points_block, points_summary
from tests.conftest import ROOT, run_grader

COURSE = load_course(ROOT)


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.id)
def test_each_readme_shows_the_points_of_its_spec(exercise) -> None:  # type: ignore[no-untyped-def]
    readme = (exercise.directory / "README.md").read_text()
    assert readme.count(START) == 1 and readme.count(END) == 1
    assert points_block(exercise.spec) in readme, "run `grader spec-docs --write`"


def test_the_summary_adds_up_what_the_grader_awards() -> None:
    ex4 = COURSE.find("ex4").spec
    assert points_summary(ex4) == (
        "Points: 10 for compiling, 70 for correctness (9 cases of 7.78), 20 for performance; "
        "100 in all."
    )
    # the twelfth walk: ex2's sweep (a performance check by kind) read "20 for performance",
    # where students see "sweep timing"
    ex2 = COURSE.find("ex2").spec
    assert ", 20 for the tile sweep's timing, " in points_summary(ex2)


def test_spec_docs_write_renders_a_changed_spec_into_the_readme(course_copy: Path) -> None:
    spec = course_copy / "exercises/ex1-non-square/spec.yaml"
    text = spec.read_text()
    spec.write_text(
        text.replace("compile:\n  points: 10", "compile:\n  points: 20").replace(
            "correctness:\n  points: 90", "correctness:\n  points: 80"
        )
    )
    done = run_grader(["--course", str(course_copy), "spec-docs", "--write"])
    assert done.returncode == 0, done.stderr
    readme = (course_copy / "exercises/ex1-non-square/README.md").read_text()
    assert "Points: 20 for compiling, 80 for correctness (10 cases of 8); 100 in all." in readme
    assert "wrote" in done.stdout and "ex1-non-square/README.md" in done.stdout
    assert (course_copy / "docs/spec.md").is_file()

from __future__ import annotations

from pathlib import Path

import pytest

from grader.course import load_course
from grader.errors import GraderError
from grader.spec import load_spec
from tests.conftest import ROOT


def test_the_course_loads_with_its_exercises() -> None:
    course = load_course(ROOT)
    assert [e.id for e in course.exercises] == ["ex1", "ex2", "ex3", "ex4"]
    ex4 = course.find("ex4-register-tiling")
    assert ex4.spec.launch.block == (16, 16)
    assert ex4.spec.launch.tile == (32, 32)
    assert ex4.points == ex4.spec.max_score == 100


def test_ex1_grades_the_shapes_the_issue_names() -> None:
    shapes = {str(c.dims) for c in load_course(ROOT).find("ex1").spec.correctness.cases}
    assert {
        "512x768x1024",
        "1x1x1",
        "17x33x65",
        "1000x1x999",
        "31x1024x33",
        "1024x1024x1024",
    } <= shapes
    assert any(c.dims.k == 1 for c in load_course(ROOT).find("ex1").spec.correctness.cases)


def _spec_with(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "exercises/ex1-non-square/spec.yaml").read_text()
    assert old in text
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "tolerance: {factor: 2.0}",
            "tolerence: {factor: 2.0}",
            ":16: correctness.tolerence: unknown key "
            "(allowed here: cases, inputs, points, tolerance)",
        ),
        ("points: 90", "points: '90'", ":14: correctness.points: Input should be a valid integer"),
        ("block: [16, 16]", "block: [16, 0]", ":7: launch: block values must be positive"),
        (
            "{shape: 1x1x1, name: tiny 1x1x1}",
            "{shape: 0x1x1}",
            ":18: correctness.cases[0].shape: expected 'MxKxN'",
        ),
        (
            "time_limit_s: 5   # per check, on a GPU; the CPU emulator adds time in proportion "
            "to the work",
            "time_limit_s: -5",
            ":10: time_limit_s: Input should be greater than 0",
        ),
        (
            "defines: {TILE_SIZE: 16}",
            "defines: {T: 16}",
            ":6: kernel.defines: define 'T' must be UPPER_CASE",
        ),
        ("  name: matmul_tiled\n", "", ":3: kernel.name: required key is missing"),
    ],
)
def test_bad_specs_name_file_line_and_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = _spec_with(tmp_path, old, new)
    with pytest.raises(GraderError) as raised:
        load_spec(path)
    message = str(raised.value)
    assert message.startswith(str(path)), message
    assert expected in message, message
    assert "\n" not in message


def test_every_problem_of_a_spec_is_named_once_with_its_line(tmp_path: Path) -> None:
    path = _spec_with(tmp_path, "points: 90", "points: '90'")
    path.write_text(path.read_text().replace("points: 10", "pointz: 10", 1))
    with pytest.raises(GraderError) as raised:
        load_spec(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:"), message
    assert "compile.pointz: unknown key" in message and "compile.points: required key" in message
    assert "; line 14: correctness.points: Input should be a valid integer" in message
    assert "\n" not in message and message.count(str(path)) == 1


def test_spec_that_is_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("title: [unclosed\n")
    # where the parser noticed (the end), and where what it was parsing began
    with pytest.raises(GraderError) as raised:
        load_spec(path)
    assert str(raised.value) == (
        f"{path}:2:1: not valid YAML: expected ',' or ']', but got '<stream end>' (parsing a "
        "flow sequence that began at line 1, column 8)"
    )


def test_course_points_must_match_the_spec(course_copy: Path) -> None:
    course_file = course_copy / "course.yaml"
    course_file.write_text(course_file.read_text().replace("points: 100", "points: 99", 1))
    with pytest.raises(
        GraderError,
        match=r"course.yaml:4: exercise ex1 is worth 99 points here but its spec .* adds up to 100",
    ):
        load_course(course_copy)


def test_unknown_exercise_lists_the_choices() -> None:
    with pytest.raises(GraderError, match=r"no exercise 'ex9'.*ex1 \(ex1-non-square\), ex2"):
        load_course(ROOT).find("ex9")


def test_the_committed_spec_reference_is_generated_from_the_models() -> None:
    from grader.spec_docs import render

    committed = (ROOT / "docs/spec.md").read_text()
    assert committed == render(), "docs/spec.md is stale: run `grader spec-docs > docs/spec.md`"
    assert "| `time_limit_s` | `float` | `60.0` |" in committed

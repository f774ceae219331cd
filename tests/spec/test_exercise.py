"""An exercise's spec as a whole: the checks it lists must agree with its sections, and every
disagreement is one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.course import load_course
from grader.errors import GraderError
from grader.spec import load_spec
from tests.conftest import ROOT

EX2 = ROOT / "exercises/ex2-tile-sweep/spec.yaml"


def test_without_a_checks_list_the_sections_present_say_which_checks_run(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(EX2.read_text().replace("checks: [compile, correctness, sweep, answers]", ""))
    assert load_spec(path).check_names == ("compile", "correctness", "sweep", "answers")


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        ("[compile, correctness, sweep]", "has the section 'answers' but checks does not list it"),
        (
            "[compile, correctness, sweep, answers, profile]",
            "lists 'profile' but the spec has no section 'profile'",
        ),
        ("[correctness, sweep, answers]", "every exercise has the 'compile' check"),
        ("[compile, compile, correctness, sweep, answers]", "each check may be listed once"),
        ("[compile, correctness, sweep, answers, speed]", "checks[4]: Input should be 'compile'"),
    ],
)
def test_a_checks_list_that_disagrees_with_the_spec_is_one_line_naming_the_file(
    tmp_path: Path, listed: str, expected: str
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(
        EX2.read_text().replace(
            "checks: [compile, correctness, sweep, answers]", f"checks: {listed}"
        )
    )
    with pytest.raises(GraderError) as error:
        load_spec(path)
    message = str(error.value)
    assert str(path) in message and expected in message and "\n" not in message


def test_the_course_s_exercises_list_their_checks() -> None:
    for exercise in load_course(ROOT).exercises:
        assert exercise.spec.checks is not None, exercise.id

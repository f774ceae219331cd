"""Checks as data: the registry, the order a spec's checks run in, and what a spec may list."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from grader.checks.registry import CHECKS, checks_for, plan
from grader.course import load_course
from grader.errors import GraderError
from grader.spec import CheckName, load_spec
from tests.conftest import ROOT

EX2 = ROOT / "exercises/ex2-tile-sweep/spec.yaml"


def test_every_check_a_spec_may_name_is_registered_and_nothing_else() -> None:
    assert set(CHECKS) == set(typing.get_args(CheckName))


def test_checks_run_after_what_they_need_whatever_order_the_spec_lists_them(
    tmp_path: Path,
) -> None:
    text = EX2.read_text().replace(
        "checks: [compile, correctness, sweep, answers]",
        "checks: [answers, sweep, correctness, compile]",
    )
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    keys = [check.key for check in checks_for(load_spec(path))]
    assert keys == ["compile", "correctness", "sweep", "answers"]


def test_the_plan_lists_every_result_in_the_order_it_is_reported() -> None:
    names = [p.name for p in plan(load_spec(EX2))]
    assert names[0] == "compile"
    assert names[1] == "correctness TILE_SIZE=8 odd 17x33x65"
    assert names.index("sweep timing") == 1 + 6 * 3
    assert names[-3:] == ["answers fastest tile size", "answers limit of 64", "answers explanation"]


def test_a_spec_with_a_sweep_and_a_performance_check_plans_both(tmp_path: Path) -> None:
    # the hand-wired pipeline never reported the performance check of such a spec
    ex4 = (ROOT / "exercises/ex4-register-tiling/spec.yaml").read_text()
    performance = ex4[ex4.index("\nperformance:") : ex4.index("\n# The checks this exercise")]
    text = EX2.read_text().replace(
        "checks: [compile, correctness, sweep, answers]",
        "checks: [compile, correctness, sweep, answers, performance]",
    )
    path = tmp_path / "spec.yaml"
    path.write_text(text + performance)
    spec = load_spec(path)
    names = [p.name for p in plan(spec)]
    assert "performance" in names and "sweep timing" in names
    assert [c.key for c in checks_for(spec)][:2] == ["compile", "correctness"]


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

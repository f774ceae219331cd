"""Checks as data: the registry, and the order a spec's checks run in."""

from __future__ import annotations

import typing
from pathlib import Path

from grader.checks.registry import CHECKS, checks_for, plan
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


def test_each_exercises_checks_add_up_to_its_points_to_four_decimals() -> None:
    # Gradescope adds its tests' maxima: 18 cases of 1.6667 made ex2 100.0006
    from grader.course import load_course

    for exercise in load_course(ROOT).exercises:
        maxima = [p.max_score for p in plan(exercise.spec)]
        assert round(sum(maxima), 4) == exercise.points, exercise.id
        assert all(round(m, 4) == m for m in maxima), exercise.id

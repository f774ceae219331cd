"""Validation's verdicts on answers variants: they go with the solution's kernel, and are judged
by what the answers are graded against, without a GPU where that is the limits of every GPU."""

from __future__ import annotations

from typing import Any

import pytest

from grader.checks.base import STOPPED_AT_FIRST_FAILURE, STOPPED_AT_REASON
from grader.course import load_course
from grader.grading import grade
from grader.results import Report
from grader.validation import judge
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("variant", "verdict", "detail"),
    [
        ("answers_wrong_limit.yaml", "ok", "rejected by answers limit of 64"),
        ("answers_wrong_fastest.yaml", "needs a GPU", "caught only by what the grader measures"),
    ],
)
def test_an_answers_variant_is_judged_on_its_answers(
    variant: str, verdict: str, detail: str
) -> None:
    exercise = load_course(ROOT).find("ex2")
    path = ROOT / "solutions" / exercise.dir_name / "wrong" / variant
    item = judge(exercise, "wrong", path, 3, "cpu")
    assert (item.verdict, item.detail[: len(detail)]) == (verdict, detail)


def test_a_variant_only_timing_catches_is_not_graded_on_the_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # grading it would emulate every correctness case (seconds) to learn only that it needs a
    # GPU; on a GPU it is graded (tests/test_gpu.py), and tests/integration/test_backends_agree.py
    # proves the CPU passes its correctness as the GPU does
    def graded(*args: object, **kwargs: object) -> None:
        raise AssertionError("graded")

    monkeypatch.setattr("grader.validation.grade", graded)
    exercise = load_course(ROOT).find("ex4")
    path = ROOT / "solutions" / exercise.dir_name / "wrong" / "skip_large.cu"
    item = judge(exercise, "wrong", path, 3, "cpu")
    assert (item.verdict, item.detail) == (
        "needs a GPU",
        "not graded on the CPU: only the performance check, which needs a GPU, catches it",
    )
    # a variant that declares a correctness reason too is graded
    both = ROOT / "solutions" / exercise.dir_name / "wrong" / "remember_inputs.cu"
    with pytest.raises(AssertionError, match="graded"):
        judge(exercise, "wrong", both, 3, "cpu")


def test_a_variant_whose_reason_shows_after_its_first_failure_is_graded_up_to_that_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # no_load_bounds fails first on "tiny 1x1x1" with a message that does not name its reason;
    # the reason ("outside A or B") shows at a later case, and the cases after it (1024^3:
    # seconds each on the CPU) are not run for validate
    reports: list[Report] = []

    def recorded(*args: Any, **kwargs: Any) -> Report:
        reports.append(grade(*args, **kwargs))
        return reports[-1]

    monkeypatch.setattr("grader.validation.grade", recorded)
    exercise = load_course(ROOT).find("ex1")
    path = ROOT / "solutions" / exercise.dir_name / "wrong" / "no_load_bounds.cu"
    item = judge(exercise, "wrong", path, 3, "cpu")
    assert item.verdict == "ok"
    first, second = reports
    assert first.checks[1].name == "correctness tiny 1x1x1"
    assert (
        first.checks[1].status == "failed" and first.checks[2].message == STOPPED_AT_FIRST_FAILURE
    )
    rejected_by = item.detail.removeprefix("rejected by ")
    names = [c.name for c in second.checks]
    assert names.index(rejected_by) > 1  # after the first failure
    after = second.checks[names.index(rejected_by) + 1 :]
    assert after[-1].name == "correctness square 1024"
    assert {(c.status, c.message) for c in after} == {("skipped", STOPPED_AT_REASON)}

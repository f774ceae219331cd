"""Validation's verdicts on answers variants: they go with the solution's kernel, and are judged
by what the answers are graded against, without a GPU where that is the limits of every GPU."""

from __future__ import annotations

import pytest

from grader.course import load_course
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

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

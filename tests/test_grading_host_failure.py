"""A grading that the host failed part-way (its sandbox could not be set up for a later check)
gives no verdict: one line saying so, not the kernel's FAILED with ERROR rows (a red-team pass
saw a correct kernel graded FAILED 10/100 so)."""

from __future__ import annotations

from typing import Any

import pytest

from grader import grading
from grader.course import load_course
from grader.errors import GraderError
from grader.isolation import Graded
from grader.results import HOST_FAILED, CheckResult, CheckStatus, DeviceInfo
from grader.source import read_source
from tests.conftest import ROOT


def test_a_check_the_host_failed_makes_the_grading_an_error_not_a_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exercise = load_course(ROOT).find("ex1")
    why = "not run: no isolation for students' native code here: bubblewrap is gone"

    def advance(job: Any, planned: Any, *args: Any, **kwargs: Any) -> Graded:
        results = {
            p.name: CheckResult(p.name, p.kind, CheckStatus.PASSED, p.max_score, p.max_score, "ok")
            if p.kind == "compile"
            else CheckResult(
                p.name, p.kind, CheckStatus.ERROR, 0.0, p.max_score, why, (HOST_FAILED,)
            )
            for p in planned
        }
        return Graded(results=results, device=DeviceInfo("cpu", "CPU"))

    monkeypatch.setattr(grading, "advance", advance)
    monkeypatch.setattr(grading.sandbox, "mode", lambda *a: "bubblewrap")
    with pytest.raises(GraderError) as raised:
        grading.grade(exercise, read_source(exercise.solution), seed=1, backend="cpu")
    assert str(raised.value) == (
        "the grading could not be done here (the host failed, not the kernel): "
        "no isolation for students' native code here: bubblewrap is gone"
    )

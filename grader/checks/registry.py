"""Every kind of check by the key a spec lists it under, and an exercise's checks in the order
their needs give. A new kind of check: a module in grader/checks/kinds/, one line here, and its
key in the spec's `checks:` list (grader/course.py's CheckName)."""

from __future__ import annotations

from grader.checks.base import Check, PlannedCheck
from grader.checks.kinds.answers import AnswersCheck
from grader.checks.kinds.compile import CompileCheck
from grader.checks.kinds.correctness import CorrectnessCheck
from grader.checks.kinds.performance import PerformanceCheck
from grader.checks.kinds.profile import ProfileCheck
from grader.checks.kinds.sweep import SweepCheck
from grader.spec import ExerciseSpec

CHECKS: dict[str, Check] = {
    check.key: check
    for check in (
        CompileCheck(),
        CorrectnessCheck(),
        PerformanceCheck(),
        SweepCheck(),
        ProfileCheck(),
        AnswersCheck(),
    )
}


def checks_for(spec: ExerciseSpec) -> list[Check]:
    """The exercise's checks, each after the ones it needs (else in the spec's order)."""
    listed = [CHECKS[key] for key in spec.check_names]
    ordered: list[Check] = []
    placing: set[str] = set()

    def place(check: Check) -> None:
        if check in ordered:
            return
        if check.key in placing:
            raise ValueError(f"checks {sorted(placing)} need each other")
        placing.add(check.key)
        for key in check.needs:
            if key in spec.check_names:
                place(CHECKS[key])
        ordered.append(check)

    for check in listed:
        place(check)
    return ordered


def plan(spec: ExerciseSpec) -> list[PlannedCheck]:
    """Every result an exercise's grading reports, in the order its checks run."""
    return [planned for check in checks_for(spec) for planned in check.plan(spec)]

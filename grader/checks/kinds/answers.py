"""The answers check: the student's answers file graded question by question against the
evidence the grader measured in this run (the sweep's times and the probe launch for
'tile_sweep', the profile's figures for 'profiling'), plus the free-text explanation, pending
a person's review where the spec has a rubric."""

from __future__ import annotations

from typing import ClassVar

from grader.backends.compiler import CompileFailure
from grader.checks.answers import (
    TileSweepAnswers,
    grade_tile_sweep,
    question_share,
    tile_sweep_check_names,
    tile_sweep_question,
)
from grader.checks.answers_load import load_answers
from grader.checks.base import Check, Context, Outcome, PlannedCheck
from grader.checks.explanation import EXPLANATION, unless_template
from grader.checks.kinds.profile import ProfileFigures
from grader.checks.kinds.sweep import SweepTimes
from grader.checks.profile_answers import (
    PROFILE_CHECK_NAMES,
    ProfileEvidence,
    ProfilingAnswers,
    grade_profiling,
    profile_question_share,
    profiling_question,
)
from grader.results import CheckKind, CheckResult
from grader.spec import ExerciseSpec

GRADED_WITHOUT_A_GPU = frozenset({"answers limit of 64"})
"""The questions graded against what the CPU backend knows too (the limits of every CUDA GPU);
every other is graded against what the grader measured on a GPU."""


class AnswersCheck(Check):
    key: ClassVar[str] = "answers"
    needs: ClassVar[tuple[str, ...]] = ("sweep", "profile")

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        answers = spec.answers
        assert answers is not None
        if answers.kind == "tile_sweep":
            assert spec.sweep is not None
            share = question_share(answers, spec.sweep.values)
            names = tile_sweep_check_names(spec.sweep.values)
        else:
            share = profile_question_share(answers)
            names = list(PROFILE_CHECK_NAMES)
        planned = [
            PlannedCheck(name, CheckKind.ANSWERS, share, name not in GRADED_WITHOUT_A_GPU)
            for name in names
        ]
        worth = float(answers.review.points) if answers.review else 0.0
        return [*planned, PlannedCheck(EXPLANATION, CheckKind.ANSWERS, worth)]

    def run(self, context: Context) -> Outcome:
        answers = context.spec.answers
        assert answers is not None
        results = _tile_sweep(context) if answers.kind == "tile_sweep" else _profiling(context)
        for result in unless_template(results, answers.review):
            context.report(result)
        return None


def _tile_sweep(context: Context) -> list[CheckResult]:
    from grader.checks.sweep import evidence_for, probe, reference_kernel, try_launch

    spec, backend = context.spec, context.backend
    sweep, answers = spec.sweep, spec.answers
    assert sweep is not None and answers is not None and backend is not None
    times = context.evidence["sweep"]
    assert isinstance(times, SweepTimes)
    limit, detail = None, "the exercise has no probe size"
    if sweep.probe is not None:
        limit, detail, compiled = probe(spec, reference_kernel(context.course_root), backend.arch)
        if backend.times_kernels and not isinstance(compiled, CompileFailure):
            error = try_launch(backend, compiled, sweep.probe)
            detail += f"; the launch failed: {error}" if error else "; the launch ran"
        elif not backend.times_kernels:
            detail += " (by the limits of every current CUDA GPU)"
    evidence = evidence_for(spec, times.medians_ms, limit, detail, times.why_none)
    given = _missing(context) or load_answers(
        context.job.answers_text, answers.file, TileSweepAnswers, tile_sweep_question
    )
    return grade_tile_sweep(given, evidence, answers, sweep.values)


def _profiling(context: Context) -> list[CheckResult]:
    spec, backend = context.spec, context.backend
    profile, answers = spec.profile, spec.answers
    assert profile is not None and answers is not None and backend is not None
    found = context.evidence["profile"]
    assert isinstance(found, ProfileFigures)
    l2 = backend.l2_bytes() if backend.times_kernels else None
    evidence = ProfileEvidence(found.figures, found.why_none, profile.size, l2)
    given = _missing(context) or load_answers(
        context.job.answers_text, answers.file, ProfilingAnswers, profiling_question
    )
    return grade_profiling(given, evidence, answers)


def _missing(context: Context) -> str:
    """Why no answer can be graded: the file could not be read, or is absent ('' when there)."""
    answers = context.spec.answers
    assert answers is not None
    if context.job.answers_error:
        return context.job.answers_error
    if context.job.answers_text is not None:
        return ""
    return (
        f"no {answers.file} next to the kernel: 0 of {answers.points} points for the "
        "answers (copy the exercise's template next to your kernel and fill it in)"
    )

"""The profile check: the reference kernels (and the student's, once correct) profiled with
Nsight Compute on this GPU. Worth no points itself; its figures are the evidence the profiling
answers are graded against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from grader.checks.base import Check, Context, Outcome, PlannedCheck
from grader.lane_lock import holding
from grader.profiling.metrics import PROFILE_CHECK
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import ExerciseSpec


@dataclass(frozen=True)
class ProfileFigures:
    """The evidence this check leaves: figures by kernel label, or why there are none."""

    figures: dict[str, dict[str, float]] | None
    why_none: str


class ProfileCheck(Check):
    key: ClassVar[str] = "profile"
    takes_gpu_alone: ClassVar[bool] = True
    needs: ClassVar[tuple[str, ...]] = ("correctness",)

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        return [PlannedCheck(PROFILE_CHECK, CheckKind.PERFORMANCE, 0.0, needs_gpu=True)]

    def run(self, context: Context) -> Outcome:
        profile, backend = context.spec.profile, context.backend
        assert profile is not None and backend is not None
        figures: dict[str, dict[str, float]] | None = None
        why = "not graded: the profile was taken by an earlier grading process that stopped"
        if not context.done(PROFILE_CHECK):
            if not backend.times_kernels:
                why = "needs a GPU and Nsight Compute (ncu): the grader profiles the kernels there"
            else:
                from grader.profiling.metrics import to_figures
                from grader.profiling.ncu import ProfileUnavailable, plan_kernels, run_profile

                student = context.source if profile.student and not context.any_failed else None
                kernels = plan_kernels(context.spec, context.course_root, student)
                what = f"profile {context.job.display_name}"
                with holding("exclusive", what, context.emit, profile.time_limit_s + 30):
                    outcome = run_profile(
                        kernels, profile.size, context.job.seed, profile.time_limit_s
                    )
                if isinstance(outcome, ProfileUnavailable):
                    why = f"not measured: {outcome.reason}"
                else:
                    figures = {p.label: p.values for p in outcome}
                    summary = _summary(figures, profile.size)
                    shown = {**to_figures(outcome), "n": float(profile.size)}
                    context.report(
                        CheckResult(
                            PROFILE_CHECK,
                            CheckKind.PERFORMANCE,
                            CheckStatus.PASSED,
                            0.0,
                            0.0,
                            summary,
                            figures=shown,
                        )
                    )
            if figures is None:
                context.report(
                    CheckResult(
                        PROFILE_CHECK, CheckKind.PERFORMANCE, CheckStatus.SKIPPED, 0.0, 0.0, why
                    )
                )
        context.evidence[self.key] = ProfileFigures(figures, why)
        return None


def _summary(figures: dict[str, dict[str, float]], n: int) -> str:
    naive, tiled = figures["naive"], figures["tiled"]

    def pair(key: str, unit: str) -> str:
        ratio = naive[key] / tiled[key] if tiled[key] else float("inf")
        return f"{naive[key]:,.1f} vs {tiled[key]:,.1f} {unit} ({ratio:.2f}x)"

    return (
        f"profiled at n = {n}, naive vs tiled: L1 global loads {pair('l1_global_load_mb', 'MB')}, "
        f"DRAM reads {pair('dram_read_mb', 'MB')}, time {pair('duration_us', 'us')}"
    )

"""The sweep check: every tile size of the spec's sweep timed on this GPU, side by side, once
every build passed its correctness checks. Leaves the times (or why there are none) for the
answers check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from grader.backends.base import KernelRuntimeError
from grader.checks.base import Check, Context, Outcome, PlannedCheck
from grader.lane_lock import holding
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import ExerciseSpec

SWEEP_CHECK = "sweep timing"


@dataclass(frozen=True)
class SweepTimes:
    """The evidence this check leaves: the median time of each tile size, or why there is none."""

    medians_ms: dict[int, float] | None
    why_none: str


class SweepCheck(Check):
    key: ClassVar[str] = "sweep"
    takes_gpu_alone: ClassVar[bool] = True
    needs: ClassVar[tuple[str, ...]] = ("correctness",)

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        assert spec.sweep is not None
        return [PlannedCheck(SWEEP_CHECK, CheckKind.PERFORMANCE, float(spec.sweep.points), True)]

    def run(self, context: Context) -> Outcome:
        sweep, backend = context.spec.sweep, context.backend
        assert sweep is not None and backend is not None
        points = float(sweep.points)
        failed = context.any_failed
        if failed:  # known without a GPU: a wrong kernel is not timed anywhere
            why = "not graded: the sweep is timed only once every tile size is correct"
        elif not backend.times_kernels:
            why = "needs a GPU: the grader measures the sweep there and grades your figures"
        else:
            why = "not graded: the sweep was timed by an earlier grading process that stopped"
        medians: dict[int, float] | None = None
        if not context.done(SWEEP_CHECK):
            if failed:
                skip = "not timed: every tile size must pass its correctness checks first"
                context.report(_result(CheckStatus.SKIPPED, points, skip))
            elif not backend.times_kernels:
                skip = "needs a GPU: the CPU backend checks each tile size's correctness only"
                context.report(_result(CheckStatus.SKIPPED, points, skip))
            else:
                from grader.checks.sweep import time_sweep

                what = f"sweep {context.job.display_name}"
                try:
                    with holding("exclusive", what, context.emit, sweep.time_cap_s + 60.0):
                        result, medians = time_sweep(
                            backend,
                            context.spec,
                            context.source,
                            context.job.seed,
                            context.keep_dir(),
                        )
                except KernelRuntimeError as exc:
                    result = _result(CheckStatus.FAILED, points, str(exc))
                if medians is None:
                    why = "not graded: the sweep timing failed (see 'sweep timing')"
                context.report(result)
        context.evidence[self.key] = SweepTimes(medians, why)
        return None


def _result(status: CheckStatus, points: float, message: str) -> CheckResult:
    return CheckResult(SWEEP_CHECK, CheckKind.PERFORMANCE, status, 0.0, points, message)

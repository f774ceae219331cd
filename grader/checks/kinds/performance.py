"""The performance check: the student's kernel timed against the spec's baseline, interleaved in
one run on this GPU, graded by the speedup. Timed only on a GPU, and only once every correctness
check passed."""

from __future__ import annotations

from typing import ClassVar

from grader.backends.base import KernelRuntimeError
from grader.backends.compiler import CompiledKernel
from grader.checks.base import Check, Context, Exit, Outcome, PlannedCheck
from grader.checks.kinds.compile import COMPILED
from grader.lane_lock import holding, record_baseline
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import ExerciseSpec

PERFORMANCE_CHECK = "performance"


class PerformanceCheck(Check):
    key: ClassVar[str] = "performance"
    takes_gpu_alone: ClassVar[bool] = True
    needs: ClassVar[tuple[str, ...]] = ("correctness",)

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        assert spec.performance is not None
        return [
            PlannedCheck(
                PERFORMANCE_CHECK, CheckKind.PERFORMANCE, float(spec.performance.points), True
            )
        ]

    def run(self, context: Context) -> Outcome:
        spec, backend = context.spec, context.backend
        performance = spec.performance
        assert performance is not None and backend is not None
        if context.done(PERFORMANCE_CHECK):
            return None
        points = float(performance.points)
        if context.any_failed:  # known without a GPU: a wrong kernel is not timed anywhere
            context.report(
                _skipped(points, "not timed: the kernel must pass every correctness check first")
            )
            return None
        if not backend.times_kernels:
            why = "needs a GPU: the CPU backend grades correctness only; timing is done on a GPU"
            context.report(_skipped(points, why))
            return None
        # Imported here: the timing engine is needed only where kernels are timed.
        from grader.checks.performance import run_performance

        compiled = context.evidence[COMPILED]
        assert isinstance(compiled, CompiledKernel)
        extra = performance.time_cap_s + 60.0  # compiling the baseline, cuBLAS, the reference
        try:
            with holding(
                "exclusive", f"performance {context.job.display_name}", context.emit, extra
            ):
                result = run_performance(
                    backend,
                    spec,
                    context.course_root,
                    compiled,
                    context.job.seed,
                    context.keep_dir(),
                    lambda extra_s: context.start(PERFORMANCE_CHECK, extra_s),
                )
        except KernelRuntimeError as exc:
            message = f"the kernel failed on the GPU while timed: {exc}"
            context.report(
                CheckResult(
                    PERFORMANCE_CHECK,
                    CheckKind.PERFORMANCE,
                    CheckStatus.FAILED,
                    0.0,
                    points,
                    message,
                )
            )
            return Exit()
        if "baseline_ms" in result.figures:
            baseline = performance.baseline
            key = f"{baseline.name} {baseline.defines} at {performance.shape}"
            record_baseline(key.replace("\n", " "), result.figures["baseline_ms"])
        context.report(result)
        return None


def _skipped(points: float, why: str) -> CheckResult:
    return CheckResult(
        PERFORMANCE_CHECK, CheckKind.PERFORMANCE, CheckStatus.SKIPPED, 0.0, points, why
    )

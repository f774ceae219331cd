"""The correctness check: every case of the spec (for every build of a sweep), each on fresh
random inputs, compared with the float64 reference; then, in the parent, hints across cases."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from grader.backends.base import Backend, KernelRuntimeError, UnsupportedKernelError
from grader.backends.compiler import CompiledKernel, CompileFailure, compile_kernel
from grader.checks.base import Check, Context, Exit, Halt, Outcome, PlannedCheck
from grader.checks.case_hints import cross_case_hints, ignored_tile_size_hint
from grader.checks.device_globals import shared_by_blocks_hint
from grader.checks.kinds.compile import COMPILED
from grader.checks.planned_case import CorrectnessCase
from grader.events import StageEvent
from grader.lane_lock import holding
from grader.results import NEEDS_GPU, CheckKind, CheckResult, CheckStatus, Stage
from grader.source import KernelSource
from grader.spec import ExerciseSpec, LaunchSpec

BUILD_BUDGET_S = 600.0
"""Added while a backend prepares a kernel (the CPU backend's two g++ builds run in it, each
with its own timeout well below this)."""


def correctness_cases(spec: ExerciseSpec) -> list[CorrectnessCase]:
    """Every correctness check: each case, for each build of a sweep (or the one build)."""
    cases = spec.correctness.cases
    if spec.sweep is None:
        shares = _shares(spec.correctness.points, len(cases))
        return [CorrectnessCase(i, case, shares[i]) for i, case in enumerate(cases)]
    sweep = spec.sweep
    shares = _shares(spec.correctness.points, len(cases) * len(sweep.values))
    return [
        CorrectnessCase(
            i,
            case,
            shares[n * len(cases) + i],
            variant=f"{sweep.define}={value}",
            defines=((sweep.define, value),),
            launch=LaunchSpec(block=(value, value), tile=(value, value)),
        )
        for n, value in enumerate(sweep.values)
        for i, case in enumerate(cases)
    ]


def _shares(points: float, count: int) -> list[float]:
    """`points` split over `count` checks, to 4 decimals, the last taking what rounding left,
    so that they add up to `points` (Gradescope adds the maxima of its tests)."""
    share = round(points / count, 4)
    return [share] * (count - 1) + [round(points - share * (count - 1), 4)]


class CorrectnessCheck(Check):
    key: ClassVar[str] = "correctness"
    needs: ClassVar[tuple[str, ...]] = ("compile",)

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        return [
            PlannedCheck(c.name, CheckKind.CORRECTNESS, c.max_score)
            for c in correctness_cases(spec)
        ]

    def run(self, context: Context) -> Outcome:
        backend = context.backend
        assert backend is not None  # the runner skips device checks without one
        compiled = context.evidence[COMPILED]
        assert isinstance(compiled, CompiledKernel)
        refused = ""
        try:
            _prepare(context, backend, compiled, context.spec.kernel.defines, "")
        except KernelRuntimeError as exc:
            return Halt(f"not run: {exc}", CheckStatus.ERROR)
        except UnsupportedKernelError as exc:
            refused = str(exc)
        with holding("shared", "correctness", context.emit):
            return _run_cases(context, backend, refused)

    def hints(
        self, spec: ExerciseSpec, results: list[CheckResult], source: KernelSource
    ) -> list[str]:
        by_name = {c.name: c for c in results}
        cases = correctness_cases(spec)
        pairs = [(case.case.dims, by_name[case.name]) for case in cases]
        hints = cross_case_hints(pairs, spec.kernel.defines.get("TILE_SIZE"), spec.launch, source)
        by_build: dict[str, list[CheckResult]] = {}
        for case in cases:
            by_build.setdefault(case.variant, []).append(by_name[case.name])
        ignored = ignored_tile_size_hint(by_build, source)
        hints += [ignored] if ignored else []
        wrong = any(c.status == "failed" for c in results)
        shared = shared_by_blocks_hint(source) if wrong else None
        return hints + ([shared] if shared else [])


def _run_cases(context: Context, backend: Backend, refused: str) -> Outcome:
    """`refused`: why the backend cannot run the exercise's own build ("" where it can)."""
    # numpy only where kernels run: a process that plans the checks (the parent) imports none
    from grader.checks.correctness import run_case

    spec, source = context.spec, context.source
    built = ""  # the variant the backend holds; "" is the exercise's own build, prepared already
    build_failure = ""
    for case in correctness_cases(spec):
        if context.done(case.name):
            continue
        if context.stopping:
            return context.stopping
        if not context.selected(case.name):
            planned = PlannedCheck(case.name, CheckKind.CORRECTNESS, case.max_score)
            context.report(context.deselected(planned))
            continue
        if case.variant != built:
            built, build_failure, refused = case.variant, "", ""
            defines = {**spec.kernel.defines, **dict(case.defines)}
            context.start("build", BUILD_BUDGET_S)
            variant = compile_kernel(source, spec.kernel.name, defines, backend.arch)
            if isinstance(variant, CompileFailure):
                build_failure = f"does not compile with {case.variant}: {variant.message}"
            else:
                try:
                    _prepare(context, backend, variant, defines, case.variant)
                except KernelRuntimeError as exc:
                    build_failure = f"cannot run with {case.variant}: {exc}"
                except UnsupportedKernelError as exc:
                    refused = f"with {case.variant}: {exc}"
        if build_failure:
            context.report(_failed(case, build_failure))
            continue
        if refused:
            context.report(_needs_gpu(case, refused))
            continue
        shape = case.case.dims
        launches = backend.launches(shape.m, shape.k, shape.n, case.case.repeat)
        # a grading's first failing case may take four more launches (the race check and up to
        # three probes of where NaNs or differences come from); a later one takes none
        probe = not context.any_failed
        extra = launches + (4 if probe else 0)
        context.start(case.name, backend.extra_time_s(shape.m, shape.k, shape.n, extra))
        try:
            result = run_case(backend, spec, case, context.job.seed, probe=probe)
        except KernelRuntimeError as exc:
            if exc.symptom == "timeout":
                # as when the parent stops a hanging child: the rest would hang too
                context.report(_failed(case, str(exc), exc.symptom))
                return Halt(f"not run: the kernel hit the time limit in '{case.name}'")
            where = context.device.backend.upper()
            context.report(_failed(case, f"the kernel failed on the {where}: {exc}"))
            if exc.context_lost:
                return Exit()
            continue
        except UnsupportedKernelError as exc:
            context.report(_needs_gpu(case, str(exc)))
            continue
        context.report(_with_warnings(result, backend.take_warnings()))
    return None


def _prepare(
    context: Context,
    backend: Backend,
    compiled: CompiledKernel,
    defines: dict[str, int],
    variant: str,
) -> None:
    """Make the kernel ready to launch, as a stage of its own: reported with its time, and under
    its own limit, so that no check's clock runs while the CPU backend builds its programs."""
    context.start("build", BUILD_BUDGET_S)
    prepared = backend.prepare(context.source, compiled, defines)
    name = f"build {variant}" if variant else "build"
    stage = Stage(name, round(prepared.seconds, 3), prepared.cached, prepared.detail)
    context.emit(StageEvent(stage=stage))


def _failed(case: CorrectnessCase, message: str, symptom: str = "runtime_error") -> CheckResult:
    return CheckResult(
        case.name,
        CheckKind.CORRECTNESS,
        CheckStatus.FAILED,
        0.0,
        case.max_score,
        message,
        (symptom,),
    )


def _needs_gpu(case: CorrectnessCase, why: str) -> CheckResult:
    """A case this backend cannot run faithfully (only the CPU backend refuses kernels): its
    points are graded on a GPU, not lost here."""
    message = f"{NEEDS_GPU}: the CPU backend cannot run this kernel; a GPU grades it\n{why}"
    return CheckResult(
        case.name, CheckKind.CORRECTNESS, CheckStatus.SKIPPED, 0.0, case.max_score, message
    )


def _with_warnings(result: CheckResult, warnings: list[str]) -> CheckResult:
    if not warnings:
        return result
    text = "\n".join(f"warning: {w}" for w in warnings)
    return replace(result, message=f"{result.message}\n{text}")

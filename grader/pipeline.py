"""What runs inside the grading child process: compile -> correctness, one result at a time.

Each finished check is emitted at once, so that if the kernel hangs or kills the process, every
check before it is already reported and the parent can carry on with the rest."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.backends.base import Backend, KernelRuntimeError
from grader.backends.cpu import UnsupportedKernelError
from grader.backends.gpu import GpuBackend
from grader.batch.lanes import holding, record_baseline
from grader.checks.answers import (
    EXPLANATION,
    TileSweepAnswers,
    grade_tile_sweep,
    load_answers,
    question_share,
    tile_sweep_check_names,
)
from grader.checks.correctness import CorrectnessCase, run_case
from grader.checks.profile_answers import (
    PROFILE_CHECK_NAMES,
    ProfileEvidence,
    ProfilingAnswers,
    grade_profiling,
    profile_question_share,
)
from grader.compiler import DEFAULT_ARCH, CompiledKernel, CompileFailure, compile_kernel
from grader.course import ExerciseSpec, LaunchSpec, load_spec
from grader.profiling.metrics import PROFILE_CHECK
from grader.profiling.ncu import plan_kernels
from grader.program_cache import cache_dir
from grader.results import CheckKind, CheckResult, CheckStatus, DeviceInfo, Stage
from grader.sandbox import HIDE_ENV
from grader.source import KernelSource

Emit = Callable[[dict[str, Any]], None]
EXIT_CONTEXT_LOST = 3
EXIT_STOPPED = 4
"""A check ran out of its time inside the child: the rest are skipped, as after a parent's stop."""
COMPILE_CHECK = "compile"
SWEEP_CHECK = "sweep timing"
PERFORMANCE_CHECK = "performance"
COMPILE_BUDGET_S = 120.0
"""Added to the spec's limit while NVRTC compiles (it is not the kernel's time)."""
BUILD_BUDGET_S = 600.0
"""Added while a backend prepares a kernel (the CPU backend's two g++ builds run in it, each
with its own timeout well below this)."""


@dataclass(frozen=True)
class Job:
    """A grading job as sent to the child (JSON)."""

    spec_path: str
    source_text: str
    display_name: str
    seed: int
    backend: str = "auto"
    """`gpu`, `cpu` or `auto` (the GPU when one is usable, else the CPU)."""
    done: tuple[str, ...] = ()
    """Checks already reported by an earlier child; they are not run again."""
    any_failed: bool = False
    """Whether a check reported by an earlier child failed (then nothing is timed)."""
    course_root: str = "."
    """Where the spec's paths (the performance baseline) are relative to."""
    keep_dir: str = ""
    """Where the performance check keeps its pytest-benchmark JSON."""
    answers_text: str | None = None
    """The answers file's text, where the exercise asks questions and the file exists."""
    answers_error: str = ""
    """Why the answers file could not be read, where it could not."""
    env: dict[str, str] = field(default_factory=dict)
    """Set in the child before any GPU work (a batch lane's GPU and lock)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        return cls(**{**data, "done": tuple(data["done"])})


@dataclass(frozen=True)
class PlannedCheck:
    name: str
    kind: CheckKind
    max_score: float


def correctness_cases(spec: ExerciseSpec) -> list[CorrectnessCase]:
    """Every correctness check: each case, for each build of a sweep (or the one build)."""
    cases = spec.correctness.cases
    if spec.sweep is None:
        share = round(spec.correctness.points / len(cases), 4)
        return [CorrectnessCase(i, case, share) for i, case in enumerate(cases)]
    sweep = spec.sweep
    share = round(spec.correctness.points / (len(cases) * len(sweep.values)), 4)
    return [
        CorrectnessCase(
            i,
            case,
            share,
            variant=f"{sweep.define}={value}",
            defines=((sweep.define, value),),
            launch=LaunchSpec(block=(value, value), tile=(value, value)),
        )
        for value in sweep.values
        for i, case in enumerate(cases)
    ]


def plan(spec: ExerciseSpec) -> list[PlannedCheck]:
    """Every check of an exercise, in the order they run."""
    checks = [PlannedCheck(COMPILE_CHECK, "compile", float(spec.compile.points))]
    checks += [PlannedCheck(c.name, "correctness", c.max_score) for c in correctness_cases(spec)]
    if spec.performance is not None:
        checks.append(
            PlannedCheck(PERFORMANCE_CHECK, "performance", float(spec.performance.points))
        )
    if spec.sweep is not None:
        checks.append(PlannedCheck(SWEEP_CHECK, "performance", float(spec.sweep.points)))
    if spec.profile is not None:
        checks.append(PlannedCheck(PROFILE_CHECK, "performance", 0.0))
    if spec.answers is not None and spec.sweep is not None and spec.answers.kind == "tile_sweep":
        share = question_share(spec.answers, spec.sweep.values)
        names = tile_sweep_check_names(spec.sweep.values)
        checks += [PlannedCheck(name, "answers", share) for name in names]
    if spec.answers is not None and spec.answers.kind == "profiling":
        share = profile_question_share(spec.answers)
        checks += [PlannedCheck(name, "answers", share) for name in PROFILE_CHECK_NAMES]
    if spec.answers is not None:
        checks.append(PlannedCheck(EXPLANATION, "answers", 0.0))
    return checks


def open_backend(choice: str) -> tuple[Backend | None, DeviceInfo]:
    """The backend asked for, or None with a DeviceInfo whose detail says why there is none."""
    from grader.backends.cpu import CpuBackend, CpuUnavailableError
    from grader.backends.gpu import GpuBackend, GpuUnavailableError

    reasons: list[str] = []
    if choice in ("gpu", "auto"):
        try:
            gpu = GpuBackend()
            return gpu, gpu.device
        except GpuUnavailableError as exc:
            reasons.append(str(exc))
    if choice in ("cpu", "auto"):
        try:
            cpu = CpuBackend()
            return cpu, cpu.device
        except CpuUnavailableError as exc:
            reasons.append(f"CPU backend unavailable: {exc}")
    return None, DeviceInfo(backend="none", name="no device", detail="; ".join(reasons))


def execute(job: Job, emit: Emit, opened: tuple[Backend | None, DeviceInfo] | None = None) -> int:
    """Run the job's remaining checks, emitting each result; returns the process exit code.
    `opened`: the backend the child opened while waiting for the job (else it is opened here)."""
    spec = load_spec(Path(job.spec_path))
    source = KernelSource(job.source_text, job.display_name)
    # Native student code (the CPU backend) never sees the course's solutions.
    hidden = [str(Path(job.course_root).resolve() / "solutions"), os.environ.get(HIDE_ENV, "")]
    os.environ[HIDE_ENV] = os.pathsep.join(p for p in hidden if p)
    backend, device = opened or open_backend(job.backend)
    try:
        return _execute(job, emit, spec, source, backend, device)
    finally:
        if backend is not None:
            backend.close()


def _execute(
    job: Job,
    emit: Emit,
    spec: ExerciseSpec,
    source: KernelSource,
    backend: Backend | None,
    device: DeviceInfo,
) -> int:
    emit({"event": "device", "device": asdict(device)})
    planned = {check.name: check for check in plan(spec)}
    reported: list[CheckResult] = []

    def report(result: CheckResult) -> None:
        reported.append(result)
        if result.name not in job.done:
            emit({"event": "result", "result": result.to_json()})

    def skip_rest(why: str, status: CheckStatus = "skipped") -> None:
        for name, check in planned.items():
            if name not in job.done and all(r.name != name for r in reported):
                report(CheckResult(name, check.kind, status, 0.0, check.max_score, why))

    arch = backend.arch if backend else DEFAULT_ARCH
    # Compiling is not the kernel's time: it gets its own, generous limit (a loaded machine).
    emit({"event": "start", "check": COMPILE_CHECK, "extra_s": COMPILE_BUDGET_S})
    compiled = compile_kernel(source, spec.kernel.name, spec.kernel.defines, arch)
    points = float(spec.compile.points)
    if isinstance(compiled, CompileFailure):
        report(CheckResult(COMPILE_CHECK, "compile", "failed", 0.0, points, compiled.message))
        skip_rest("not run: the kernel does not compile")
        return 0
    resources = (
        f" ({compiled.registers} registers, {compiled.shared_bytes} bytes of shared memory)"
        if compiled.registers is not None
        else ""
    )
    report(
        CheckResult(
            COMPILE_CHECK, "compile", "passed", points, points, f"compiled for {arch}{resources}"
        )
    )
    if backend is None:
        skip_rest(f"not run: {device.detail}")
        return 0
    try:
        _prepare(backend, source, compiled, spec.kernel.defines, "", emit)
    except (KernelRuntimeError, UnsupportedKernelError) as exc:
        skip_rest(f"not run: {exc}", "error")
        return 0
    with holding("shared", "correctness", emit):
        code = _run_correctness(job, spec, backend, device, report, emit)
    if code == EXIT_STOPPED:
        hung = next(r.name for r in reported if "timeout" in r.symptoms)
        skip_rest(f"not run: the kernel hit the time limit in '{hung}'")
        return 0
    failed = job.any_failed or any(r.status in ("failed", "error") for r in reported)
    if code == 0 and spec.sweep is not None:
        return _run_sweep(job, spec, source, backend, failed, report, emit)
    if code == 0 and spec.profile is not None:
        return _run_profile(job, spec, source, backend, failed, report, emit)
    if code != 0 or spec.performance is None or PERFORMANCE_CHECK in job.done:
        return code
    if not isinstance(backend, GpuBackend):
        skip_rest("needs a GPU: the CPU backend grades correctness only; timing is done on a GPU")
    elif failed:
        skip_rest("not timed: the kernel must pass every correctness check first")
    else:
        # Imported here: pytest and the timing engine are needed only where kernels are timed.
        from grader.checks.performance import run_performance

        extra = spec.performance.time_cap_s + 60.0  # compiling the baseline, cuBLAS, the reference
        try:
            with holding("exclusive", f"performance {job.display_name}", emit, extra):
                result = run_performance(
                    backend,
                    spec,
                    Path(job.course_root),
                    compiled,
                    job.seed,
                    _keep_dir(job),
                    lambda extra_s: emit(
                        {"event": "start", "check": PERFORMANCE_CHECK, "extra_s": extra_s}
                    ),
                )
            if "baseline_ms" in result.figures:
                baseline = spec.performance.baseline
                key = f"{baseline.name} {baseline.defines} at {spec.performance.shape}"
                record_baseline(key.replace("\n", " "), result.figures["baseline_ms"])
            report(result)
        except KernelRuntimeError as exc:
            skip_rest(f"the kernel failed on the GPU while timed: {exc}", "failed")
            return EXIT_CONTEXT_LOST
    return 0


def _run_sweep(
    job: Job,
    spec: ExerciseSpec,
    source: KernelSource,
    backend: Backend,
    failed: bool,
    report: Callable[[CheckResult], None],
    emit: Emit,
) -> int:
    """ex2: time every tile size (GPU), probe the next one, grade the answers against both."""
    from grader.checks.sweep import evidence_for, probe, reference_kernel, time_sweep, try_launch

    sweep = spec.sweep
    assert sweep is not None
    medians: dict[int, float] | None = None
    gpu = isinstance(backend, GpuBackend)
    points = float(sweep.points)
    no_timing = "not graded: the sweep was timed by an earlier grading process that stopped"
    if not gpu:
        no_timing = "needs a GPU: the grader measures the sweep there and grades your figures"
    elif failed:
        no_timing = "not graded: the sweep is timed only once every tile size is correct"
    if SWEEP_CHECK not in job.done:
        if not gpu:
            why = "needs a GPU: the CPU backend checks each tile size's correctness only"
            report(CheckResult(SWEEP_CHECK, "performance", "skipped", 0.0, points, why))
        elif failed:
            why = "not timed: every tile size must pass its correctness checks first"
            report(CheckResult(SWEEP_CHECK, "performance", "skipped", 0.0, points, why))
        else:
            extra = sweep.time_cap_s + 60.0
            try:
                with holding("exclusive", f"sweep {job.display_name}", emit, extra):
                    result, medians = time_sweep(backend, spec, source, job.seed, _keep_dir(job))
            except KernelRuntimeError as exc:
                result = CheckResult(SWEEP_CHECK, "performance", "failed", 0.0, points, str(exc))
            if medians is None:
                no_timing = "not graded: the sweep timing failed (see 'sweep timing')"
            report(result)
    if spec.answers is None or spec.answers.kind != "tile_sweep":
        return 0
    limit, detail = None, "the exercise has no probe size"
    if sweep.probe is not None:
        course_kernel = reference_kernel(Path(job.course_root))
        limit, detail, compiled = probe(spec, course_kernel, backend.arch)
        if gpu and not isinstance(compiled, CompileFailure):
            error = try_launch(backend, compiled, sweep.probe)
            detail += f"; the launch failed: {error}" if error else "; the launch ran"
        elif not gpu:
            detail += " (by the limits of every current CUDA GPU)"
    evidence = evidence_for(spec, medians, limit, detail, no_timing)
    answers = (
        job.answers_error
        or _missing_answers(job, spec)
        or load_answers(job.answers_text, spec.answers.file, TileSweepAnswers)
    )
    for result in grade_tile_sweep(answers, evidence, spec.answers, sweep.values):
        report(result)
    return 0


def _run_profile(
    job: Job,
    spec: ExerciseSpec,
    source: KernelSource,
    backend: Backend,
    failed: bool,
    report: Callable[[CheckResult], None],
    emit: Emit,
) -> int:
    """ex3: profile the reference kernels (and the student's, once correct) with Nsight Compute,
    then grade the answers against those figures."""
    from grader.profiling.metrics import to_figures
    from grader.profiling.ncu import ProfileUnavailable, run_profile

    profile = spec.profile
    assert profile is not None
    gpu = isinstance(backend, GpuBackend)
    figures: dict[str, dict[str, float]] | None = None
    no_profile = "not graded: the profile was taken by an earlier grading process that stopped"
    if PROFILE_CHECK not in job.done:
        if not gpu:
            no_profile = (
                "needs a GPU and Nsight Compute (ncu): the grader profiles the kernels there"
            )
        else:
            student = source if profile.student and not failed else None
            kernels = plan_kernels(spec, Path(job.course_root), student)
            extra = profile.time_limit_s + 30
            with holding("exclusive", f"profile {job.display_name}", emit, extra):
                outcome = run_profile(kernels, profile.size, job.seed, profile.time_limit_s)
            if isinstance(outcome, ProfileUnavailable):
                no_profile = f"not measured: {outcome.reason}"
            else:
                figures = {p.label: p.values for p in outcome}
                report(
                    CheckResult(
                        PROFILE_CHECK,
                        "performance",
                        "passed",
                        0.0,
                        0.0,
                        _profile_summary(figures, profile.size),
                        figures={**to_figures(outcome), "n": float(profile.size)},
                    )
                )
        if figures is None:
            report(CheckResult(PROFILE_CHECK, "performance", "skipped", 0.0, 0.0, no_profile))
    if spec.answers is None or spec.answers.kind != "profiling":
        return 0
    evidence = ProfileEvidence(
        figures,
        no_profile,
        profile.size,
        backend.l2_bytes() if isinstance(backend, GpuBackend) else None,
    )
    answers = (
        job.answers_error
        or _missing_answers(job, spec)
        or load_answers(job.answers_text, spec.answers.file, ProfilingAnswers)
    )
    for result in grade_profiling(answers, evidence, spec.answers):
        report(result)
    return 0


def _profile_summary(figures: dict[str, dict[str, float]], n: int) -> str:
    naive, tiled = figures["naive"], figures["tiled"]

    def pair(key: str, unit: str) -> str:
        ratio = naive[key] / tiled[key] if tiled[key] else float("inf")
        return f"{naive[key]:,.1f} vs {tiled[key]:,.1f} {unit} ({ratio:.2f}x)"

    return (
        f"profiled at n = {n}, naive vs tiled: L1 global loads {pair('l1_global_load_mb', 'MB')}, "
        f"DRAM reads {pair('dram_read_mb', 'MB')}, time {pair('duration_us', 'us')}"
    )


def _missing_answers(job: Job, spec: ExerciseSpec) -> str:
    """Why no answer can be graded when the answers file is absent ('' when it is there)."""
    if job.answers_text is not None or spec.answers is None:
        return ""
    return (
        f"no {spec.answers.file} next to the kernel: 0 of {spec.answers.points} points for the "
        "answers (copy the exercise's template next to your kernel and fill it in)"
    )


def _keep_dir(job: Job) -> Path:
    if job.keep_dir:
        return Path(job.keep_dir)
    return cache_dir().parent / "benchmarks" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"


def _run_correctness(
    job: Job,
    spec: ExerciseSpec,
    backend: Backend,
    device: DeviceInfo,
    report: Callable[[CheckResult], None],
    emit: Emit,
) -> int:
    source = KernelSource(job.source_text, job.display_name)
    built = ""  # the variant the backend holds; "" is the exercise's own build, prepared already
    build_failure = ""
    for case in correctness_cases(spec):
        if case.name in job.done:
            continue
        if case.variant != built:
            built, build_failure = case.variant, ""
            defines = {**spec.kernel.defines, **dict(case.defines)}
            emit({"event": "start", "check": "build", "extra_s": BUILD_BUDGET_S})
            variant = compile_kernel(source, spec.kernel.name, defines, backend.arch)
            if isinstance(variant, CompileFailure):
                build_failure = f"does not compile with {case.variant}: {variant.message}"
            else:
                try:
                    _prepare(backend, source, variant, defines, case.variant, emit)
                except (KernelRuntimeError, UnsupportedKernelError) as exc:
                    build_failure = f"cannot run with {case.variant}: {exc}"
        if build_failure:
            report(_failed(case, build_failure))
            continue
        shape = case.case.dims
        launches = backend.launches(shape.m, shape.k, shape.n, case.case.repeat)
        # a failing case may take four more launches (the race check and up to three probes
        # of where NaNs or differences come from)
        extra = backend.extra_time_s(shape.m, shape.k, shape.n, launches + 4)
        emit({"event": "start", "check": case.name, "extra_s": extra})
        try:
            result = run_case(backend, spec, case, job.seed)
        except KernelRuntimeError as exc:
            if exc.symptom == "timeout":
                # as when the parent stops a hanging child: the rest would hang too
                report(_failed(case, str(exc), exc.symptom))
                return EXIT_STOPPED
            else:
                report(_failed(case, f"the kernel failed on the {device.backend.upper()}: {exc}"))
            if exc.context_lost:
                return EXIT_CONTEXT_LOST
            continue
        except UnsupportedKernelError as exc:
            report(_error(case, f"not run: {exc}"))
            continue
        report(_with_warnings(result, backend.take_warnings()))
    return 0


def _prepare(
    backend: Backend,
    source: KernelSource,
    compiled: CompiledKernel,
    defines: dict[str, int],
    variant: str,
    emit: Emit,
) -> None:
    """Make the kernel ready to launch, as a stage of its own: reported with its time, and under
    its own limit, so that no check's clock runs while the CPU backend builds its programs."""
    emit({"event": "start", "check": "build", "extra_s": BUILD_BUDGET_S})
    prepared = backend.prepare(source, compiled, defines)
    name = f"build {variant}" if variant else "build"
    stage = Stage(name, round(prepared.seconds, 3), prepared.cached, prepared.detail)
    emit({"event": "stage", "stage": asdict(stage)})


def _failed(case: CorrectnessCase, message: str, symptom: str = "runtime_error") -> CheckResult:
    return CheckResult(case.name, "correctness", "failed", 0.0, case.max_score, message, (symptom,))


def _error(case: CorrectnessCase, message: str) -> CheckResult:
    return CheckResult(case.name, "correctness", "error", 0.0, case.max_score, message)


def _with_warnings(result: CheckResult, warnings: list[str]) -> CheckResult:
    if not warnings:
        return result
    text = "\n".join(f"warning: {w}" for w in warnings)
    return replace(result, message=f"{result.message}\n{text}")

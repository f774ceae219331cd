"""The compile check: NVRTC compiles the kernel for the backend's architecture; without a
kernel nothing else can run."""

from __future__ import annotations

from typing import ClassVar

from grader.backends.compiler import DEFAULT_ARCH, CompileFailure, compile_kernel
from grader.backends.cpu_unsupported import unsupported_constructs
from grader.checks.base import Check, Context, Halt, Outcome, PlannedCheck
from grader.results import CPU_REFUSES, CheckKind, CheckResult, CheckStatus
from grader.spec import ExerciseSpec

COMPILE_CHECK = "compile"
COMPILE_BUDGET_S = 120.0
"""Added to the spec's limit while NVRTC compiles (it is not the kernel's time)."""
COMPILED = "compile"
"""The evidence key of the compiled kernel (a CompiledKernel), for the checks after it."""


class CompileCheck(Check):
    key: ClassVar[str] = "compile"
    uses_device: ClassVar[bool] = False

    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        return [PlannedCheck(COMPILE_CHECK, CheckKind.COMPILE, float(spec.compile.points))]

    def run(self, context: Context) -> Outcome:
        spec, backend = context.spec, context.backend
        arch = backend.arch if backend else DEFAULT_ARCH
        # Compiling is not the kernel's time: it gets its own, generous limit (a loaded machine).
        context.start(COMPILE_CHECK, COMPILE_BUDGET_S)
        compiled = compile_kernel(context.source, spec.kernel.name, spec.kernel.defines, arch)
        points = float(spec.compile.points)
        if isinstance(compiled, CompileFailure):
            context.report(
                CheckResult(
                    COMPILE_CHECK,
                    CheckKind.COMPILE,
                    CheckStatus.FAILED,
                    0.0,
                    points,
                    compiled.message,
                )
            )
            return Halt("not run: the kernel does not compile")
        context.evidence[COMPILED] = compiled
        resources = (
            f" ({compiled.registers} registers, {compiled.shared_bytes} bytes of shared memory)"
            if compiled.registers is not None
            else ""
        )
        message = f"compiled for {arch}{resources}"
        # seen on every backend, so that a GPU grading knows what a CPU grading left to it
        refused = (CPU_REFUSES,) if unsupported_constructs(context.source) else ()
        context.report(
            CheckResult(
                COMPILE_CHECK,
                CheckKind.COMPILE,
                CheckStatus.PASSED,
                points,
                points,
                message,
                refused,
            )
        )
        return None

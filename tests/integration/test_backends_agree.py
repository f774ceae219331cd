"""The CPU backend gives the GPU's verdict: every solution, stub and known-wrong kernel, graded on
both backends with the same seed, passes or fails alike, and fails first at the same check.

Where the GPU's first failure is a check only a GPU can make (timing, measured answers), the CPU
must say so for that check ("needs a GPU") and pass everything before it. Where the CPU fails
sooner, it must be with the symptom the GPU shows (a race, work skipped on a repeated launch):
the CPU launches small shapes three times, in three thread orders, where a GPU launches once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.course import Exercise, load_course
from grader.grading import default_answers, grade
from grader.results import NEEDS_GPU, CheckKind, CheckResult, Report
from grader.source import read_source
from tests.conftest import ROOT

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
COURSE = load_course(ROOT)
SEED = 2026
_REPEAT_SYMPTOMS = frozenset({"race", "unwritten"})
"""Failures that repeated launches reveal: the CPU's three orders find them at smaller shapes."""


def _kernels(exercise: Exercise) -> list[Path]:
    variants = [p for p in exercise.wrong_variants if p.suffix == ".cu"]
    return [exercise.solution, exercise.stub, *variants]


def _first_failure(report: Report) -> CheckResult | None:
    return next((c for c in report.checks if c.status in ("failed", "error")), None)


def _verdict(report: Report) -> str:
    """For the table: the first failure's check, else the first check left to a GPU, else pass."""
    failed = _first_failure(report)
    if failed is not None:
        return failed.name
    left = (c for c in report.checks if c.status == "skipped" and c.message.startswith(NEEDS_GPU))
    first = next(left, None)
    return f"{NEEDS_GPU} at {first.name}" if first else "pass"


def _left_to_a_gpu(report: Report) -> str:
    """The message of the first correctness check the report leaves to a GPU, else ''."""
    left = (c for c in report.checks if c.kind == CheckKind.CORRECTNESS and c.needs_a_gpu)
    return next((c.message for c in left), "")


def _grade(exercise: Exercise, kernel: Path, backend: str) -> Report:
    answers = default_answers(exercise, kernel)
    if answers is not None and not answers.is_file():
        answers = default_answers(exercise, exercise.solution)
    return grade(exercise, read_source(kernel), seed=SEED, backend=backend, answers=answers)


def disagreement(gpu: Report, cpu: Report) -> str:
    """'' when the CPU's verdict is the GPU's, else how they differ."""
    on_gpu, on_cpu = _first_failure(gpu), _first_failure(cpu)
    if on_gpu is None:
        return "" if on_cpu is None else f"passes on the GPU, fails on the CPU at {on_cpu.name}"
    mirror = next(c for c in cpu.checks if c.name == on_gpu.name)
    if mirror.status == "skipped" and mirror.message.startswith(NEEDS_GPU):
        before = cpu.checks[: cpu.checks.index(mirror)]
        broken = [c.name for c in before if c.status in ("failed", "error")]
        return f"fails on the CPU at {broken[0]} before the GPU-only check" if broken else ""
    if on_cpu is None:
        return f"fails on the GPU at {on_gpu.name}, passes on the CPU"
    if on_cpu.name == on_gpu.name:
        return ""
    # The CPU runs small shapes once in each of three thread orders, where a GPU launches once:
    # a race, or a kernel that skips work on a repeated launch, shows there at a smaller shape
    # than on the GPU. That is the same failure found sooner, if it is the same failure.
    names = [c.name for c in cpu.checks]
    sooner = names.index(on_cpu.name) < names.index(on_gpu.name)
    if sooner and set(on_cpu.symptoms) & set(on_gpu.symptoms) & _REPEAT_SYMPTOMS:
        return ""
    # Shared memory read before any thread wrote it holds NaN on the CPU, always; on a GPU it
    # holds whatever was there (zeros in a fresh context, by luck), so the GPU shows the same
    # failure only at a larger shape.
    if sooner and "uninitialised_shared" in on_cpu.symptoms:
        return ""
    return f"fails first at {on_gpu.name} on the GPU, at {on_cpu.name} on the CPU"


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.id)
def test_the_cpu_backend_gives_the_gpu_verdict(exercise: Exercise) -> None:
    kernels = _kernels(exercise)
    gpu = [_grade(exercise, kernel, "gpu") for kernel in kernels]
    with ThreadPoolExecutor(max_workers=8) as pool:
        cpu = list(pool.map(lambda kernel: _grade(exercise, kernel, "cpu"), kernels))
    table = []
    problems = []
    for kernel, on_gpu, on_cpu in zip(kernels, gpu, cpu, strict=True):
        assert on_gpu.device.backend == "gpu" and on_cpu.device.backend == "cpu"
        first_gpu, first_cpu = _first_failure(on_gpu), _first_failure(on_cpu)
        table.append(f"{kernel.relative_to(ROOT)}: GPU {_verdict(on_gpu)} | CPU {_verdict(on_cpu)}")
        why = disagreement(on_gpu, on_cpu)
        left = _left_to_a_gpu(on_cpu) if kernel in (exercise.solution, exercise.stub) else ""
        if left:
            # plain CUDA, that the CPU backend runs: leaving it to a GPU means the CPU backend
            # is broken here (a run on a host without bubblewrap did so, and agreed on nothing)
            why = why or f"the CPU left correctness to a GPU: {left[:300]}"
        if why:
            said = [f"{c.name}: {c.message[:300]}" for c in (first_gpu, first_cpu) if c]
            problems.append(f"{kernel.relative_to(ROOT)}: {why}; " + " / ".join(said))
    print("\n".join(table))
    assert problems == [], "\n".join(problems)

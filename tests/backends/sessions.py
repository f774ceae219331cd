"""A CPU backend prepared for one kernel in the test's own process, and closed with what its
programs leave behind reaped (tests/processes.reaping_orphans); a file graded as ex1 on the CPU
backend, and the verdict a GPU gives a kernel that writes nothing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import CpuBackend
from grader.course import load_course
from grader.grading import grade
from grader.results import Report
from grader.source import KernelSource
from tests.processes import reaping_orphans


@contextmanager
def prepared_cpu_backend(
    source: KernelSource, name: str, defines: Mapping[str, int]
) -> Iterator[CpuBackend]:
    compiled = compile_kernel(source, name, dict(defines))
    assert isinstance(compiled, CompiledKernel), compiled
    backend = CpuBackend()
    with reaping_orphans():
        try:
            backend.prepare(source, compiled, dict(defines))
            yield backend
        finally:
            backend.close()


SAME_TYPE = """
template <class T, class U> struct same_type { static constexpr bool value = false; };
template <class T> struct same_type<T, T> { static constexpr bool value = true; };
"""
"""C++ that NVRTC and g++ both compile, without the standard library: std::is_same."""


def graded_as_ex1(course: Path, text: str, name: str = "kernel.cu") -> Report:
    """`text` graded as ex1 of `course` (the small one, usually) on the CPU backend, seed 1."""
    exercise = load_course(course).find("ex1")
    return grade(exercise, KernelSource(text, name), seed=1, backend="cpu")


def assert_writes_nothing_as_on_a_gpu(report: Report) -> None:
    """The verdict a GPU gives a kernel that writes nothing: its first correctness case fails
    with C never written, and no check is left to a GPU."""
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert correctness and not report.passed and not report.needs_gpu
    assert correctness[0].status == "failed", correctness[0].message
    assert "never written" in correctness[0].message, correctness[0].message

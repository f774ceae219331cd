"""A CPU backend prepared for one kernel in the test's own process, and closed with what its
programs leave behind reaped (tests/processes.reaping_orphans)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import CpuBackend
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

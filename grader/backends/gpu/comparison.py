"""A timed launch's output checked on the GPU: the inputs as drawn widened to float64 (and their
magnitudes) by one kernel, which also counts where the kernel's buffers differ from them; A B and
|A| |B| by DGEMM; then one pass over the output (compare_output.cu, compiled and cached like a
student's kernel). CuPy's generic element-wise operations would cost about half a second of
first-use set-up in every grading process (measured on the H200), as much as the rest of the
timing stage; host_comparison.py is the same comparison in NumPy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from grader.backends.compiler import CompileFailure, compile_kernel
from grader.backends.timed_gemm import ErrorBound, OutputComparison
from grader.source import KernelSource

_SOURCE = Path(__file__).with_name("compare_output.cu")


class DeviceComparison:
    """The comparison's kernels and float64 scratch buffers for one shape."""

    def __init__(self, cp: Any, dims: tuple[int, int, int], arch: str) -> None:
        source = KernelSource(_SOURCE.read_text(), _SOURCE.name)
        compiled = compile_kernel(source, "compare_output", {}, arch)
        if isinstance(compiled, CompileFailure):
            raise RuntimeError(f"the grader's comparison kernel: {compiled.message}")
        module = cp.RawModule(path=str(compiled.cubin_path))
        self._widen = module.get_function("widen")
        self._compare = module.get_function("compare_output")
        m, k, n = dims
        self._wide = [
            cp.empty(shape, dtype=cp.float64) for shape in ((m, k), (m, k), (k, n), (k, n))
        ]
        self._reference = cp.empty((m, n), dtype=cp.float64)
        self._magnitude = cp.empty((m, n), dtype=cp.float64)
        self._cp = cp

    def queue(
        self, given: tuple[Any, Any], drawn: tuple[Any, Any], output: Any, bound: ErrorBound
    ) -> Callable[[], OutputComparison]:
        """Queue `output` against drawn[0] @ drawn[1], and `given` (the kernel's buffers)
        against `drawn`; returns what reads the counts (waiting for them). Each comparison
        counts into buffers of its own: many may be queued before any is read."""
        cp = self._cp
        a, abs_a, b, abs_b = self._wide
        counts = cp.zeros(2, dtype=cp.uint64)
        sums = cp.zeros(2, dtype=cp.float64)
        changed = counts[1:]
        for kernels, copy, wide, magnitude in zip(
            given, drawn, (a, b), (abs_a, abs_b), strict=True
        ):
            widening = (copy, kernels, wide, magnitude, np.int64(copy.size), changed)
            self._widen((264,), (256,), widening)
        cp.matmul(a, b, out=self._reference)
        cp.matmul(abs_a, abs_b, out=self._magnitude)
        comparing = (output, self._reference, self._magnitude, np.int64(output.size))
        bounds = (np.float64(bound.scale), np.float64(bound.floor), counts, sums)
        self._compare((264,), (256,), (*comparing, *bounds))

        def read() -> OutputComparison:
            bad, inputs_changed = (int(x) for x in counts.get())
            d2, r2 = (float(x) for x in sums.get())
            return OutputComparison(bad, inputs_changed, d2, r2)

        return read

    def compare(
        self, given: tuple[Any, Any], drawn: tuple[Any, Any], output: Any, bound: ErrorBound
    ) -> OutputComparison:
        """`output` against drawn[0] @ drawn[1]; `given` (the kernel's buffers) against `drawn`."""
        return self.queue(given, drawn, output, bound)()

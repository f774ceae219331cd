"""The device side of timing on the GPU: inputs drawn on the device from the run's seed (their own
stream, not the correctness check's), one output per timed kernel, the L2 flush buffer, cuBLAS,
and a launch timed with a synchronizing clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from grader.backends.base import KernelRuntimeError
from grader.backends.compiler import CompiledKernel
from grader.backends.geometry import launch_geometry
from grader.backends.gpu.clock import SmClock
from grader.backends.gpu.comparison import DeviceComparison
from grader.backends.gpu.runtime import cuda_errors, launch, short
from grader.backends.timed_gemm import ClockReading, ErrorBound, OutputComparison
from grader.spec import Shape

FLUSH_FACTOR = 2
"""The L2 flush writes twice the L2's size."""
_STREAM = 0x7E57
"""Mixed into the seed: timing's inputs are not the correctness check's."""


class GpuTimedGemm:
    """A TimedGemm (backends.timed_gemm) on device 0."""

    def __init__(
        self,
        cp: Any,
        load: Callable[[CompiledKernel], Any],
        shape: Shape,
        seed: int,
        l2_bytes: int,
        arch: str,
    ) -> None:
        self._cp, self._load, self._arch = cp, load, arch
        self._dims = (shape.m, shape.k, shape.n)
        state = int(np.random.SeedSequence([seed, _STREAM]).generate_state(1)[0])
        self._rng = cp.random.RandomState(state)
        self._a = self._draw((shape.m, shape.k))
        self._b = self._draw((shape.k, shape.n))
        self._drawn = (self._a.copy(), self._b.copy())
        self._flush = cp.empty(FLUSH_FACTOR * l2_bytes, dtype=cp.uint8)
        self._flushes = 0
        self._outputs: dict[str, Any] = {}
        self._launches: dict[str, Callable[[], None]] = {}
        self._comparison: DeviceComparison | None = None
        self._errors = (*cuda_errors(cp), cp.cuda.cublas.CUBLASError, cp.cuda.curand.CURANDError)

    def _draw(self, dims: tuple[int, int]) -> Any:
        return self._rng.uniform(-1.0, 1.0, dims, dtype=self._cp.float32)

    @property
    def dims(self) -> tuple[int, int, int]:
        return self._dims

    def _output(self, label: str) -> Any:
        m, _, n = self._dims
        self._outputs[label] = self._cp.empty((m, n), dtype=self._cp.float32)
        return self._outputs[label]

    def add_kernel(
        self, label: str, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int]
    ) -> None:
        function, output = self._load(compiled), self._output(label)
        geometry = launch_geometry(block, tile, self._dims[0], self._dims[2])
        a, b, dims = self._a, self._b, self._dims
        self._launches[label] = lambda: launch(function, geometry, a, b, output, dims)

    def add_library_gemm(self, label: str) -> None:
        """cuBLAS SGEMM through CuPy's matmul (TF32 is off unless CUPY_TF32 is set, which the
        grader unsets), timed with CUDA events (queue_launch says why)."""
        output, cp, a, b = self._output(label), self._cp, self._a, self._b
        self._launches[label] = lambda: cp.matmul(a, b, out=output)

    def renew_inputs(self) -> None:
        with self._faults():
            self._drawn = (self._draw(self._a.shape), self._draw(self._b.shape))
            self._a[...] = self._drawn[0]
            self._b[...] = self._drawn[1]

    def poison_output(self, label: str, bits: int) -> None:
        with self._faults():
            self._outputs[label].view("uint32").fill(bits)

    def flush_l2(self) -> None:
        self._flushes += 1
        with self._faults():
            self._flush.fill(self._flushes % 251)

    def synchronize(self) -> None:
        with self._faults():
            self._cp.cuda.runtime.deviceSynchronize()

    def queue_launch(self, label: str) -> Callable[[], float]:
        """A launch timed with CUDA events around it alone. The host queues the events and the
        launch behind the work before (the L2 flush, usually earlier launches and their
        checks), so that its own time to launch (and CuPy's in matmul) passes while the device
        is busy. A clock on the host around a synchronized launch also counted the host's
        wake-up after it, which on the H200 machine moved by some 20 us from one run to the
        next (the same kernels measured 1.142 or 1.167 ms, the baseline 2.138 or 2.155 ms,
        while cuBLAS under events stayed at 0.344 ms): a speedup spread of 0.5 % that had
        nothing to do with the kernels."""
        cuda = self._cp.cuda
        start, end = cuda.Event(), cuda.Event()
        with self._faults():
            start.record()
            self._launches[label]()
            end.record()

        def seconds() -> float:
            with self._faults():
                end.synchronize()
                return float(cuda.get_elapsed_time(start, end)) / 1e3

        return seconds

    def queue_compare(self, label: str, bound: ErrorBound) -> Callable[[], OutputComparison]:
        if self._comparison is None:
            self._comparison = DeviceComparison(self._cp, self._dims, self._arch)
        given = (self._a, self._b)
        with self._faults():
            found = self._comparison.queue(given, self._drawn, self._outputs[label], bound)

        def comparison() -> OutputComparison:
            with self._faults():
                return found()

        return comparison

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """A kernel's fault (an illegal address, say) is reported by whichever call comes after
        it: a later launch, cuBLAS, a read. Each is the kernel's failure."""
        try:
            yield
        except self._errors as exc:
            raise KernelRuntimeError(short(exc)) from None

    def clock_reading(self) -> ClockReading:
        return SmClock()

    def timer_name(self, label: str) -> str:
        return "cuda_events"

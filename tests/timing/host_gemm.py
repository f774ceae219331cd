"""A TimedGemm (grader.backends.timed_gemm) on the host, for tests: NumPy inputs and outputs,
kernels that are Python functions, the comparison of backends/host_comparison.py. The timing loop
is the same as on a GPU; only the launches and the clock differ."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from grader.backends.compiler import CompiledKernel
from grader.backends.host_comparison import compare_on_host
from grader.backends.timed_gemm import ClockReading, ErrorBound, OutputComparison

# A stand-in kernel: given A, B, its output and its launch number (from 1), it writes (or not).
HostKernel = Callable[[np.ndarray, np.ndarray, np.ndarray, int], None]
Draw = Callable[[tuple[int, ...]], np.ndarray]


def drawing(seed: int = 0) -> Draw:
    rng = np.random.default_rng(seed)
    return lambda shape: rng.uniform(-1, 1, shape).astype(np.float32)


class _Clock:
    def mhz(self) -> str:
        return "?"


class HostTimedGemm:
    def __init__(self, a: np.ndarray, b: np.ndarray, draw: Draw) -> None:
        self.a, self.b, self._draw = a, b, draw
        self.drawn = (a.copy(), b.copy())
        self.outputs: dict[str, np.ndarray] = {}
        self.kernels: dict[str, Callable[[], None]] = {}
        self.flushes = 0

    @property
    def dims(self) -> tuple[int, int, int]:
        return self.a.shape[0], self.a.shape[1], self.b.shape[1]

    def add_host_kernel(self, label: str, kernel: HostKernel) -> None:
        output = self.outputs[label] = np.empty((self.dims[0], self.dims[2]), dtype=np.float32)
        calls = [0]

        def run() -> None:
            calls[0] += 1
            kernel(self.a, self.b, output, calls[0])

        self.kernels[label] = run

    def add_kernel(
        self, label: str, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int]
    ) -> None:
        raise NotImplementedError("host stand-ins only: add_host_kernel")

    def add_library_gemm(self, label: str) -> None:
        self.add_host_kernel(label, lambda a, b, out, _: np.matmul(a, b, out=out))

    def renew_inputs(self) -> None:
        self.drawn = (self._draw(self.a.shape), self._draw(self.b.shape))
        self.a[...], self.b[...] = self.drawn

    def poison_output(self, label: str, bits: int) -> None:
        self.outputs[label].view(np.uint32).fill(bits)

    def flush_l2(self) -> None:
        self.flushes += 1

    def synchronize(self) -> None:
        pass

    def queue_launch(self, label: str) -> Callable[[], float]:
        """Runs at once (the host has no queue): the reader returns what was measured."""
        start = time.perf_counter()
        self.kernels[label]()
        seconds = time.perf_counter() - start
        return lambda: seconds

    def queue_compare(self, label: str, bound: ErrorBound) -> Callable[[], OutputComparison]:
        found = compare_on_host((self.a, self.b), self.drawn, self.outputs[label], bound)
        return lambda: found

    def clock_reading(self) -> ClockReading:
        return _Clock()

    def timer_name(self, label: str) -> str:
        return "perf_counter"

"""The interface of a timed GEMM: the device-side primitives the timing loop (grader.timing)
drives. Inputs live on the device; each timed kernel writes its own output; every primitive here
runs outside the timed region except `queue_launch`. Each is queued in order on one stream of the
device and returns before it has run: what is read back waits for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from grader.backends.compiler import CompiledKernel


@dataclass(frozen=True)
class ErrorBound:
    """The elementwise bound of a launch's output: |C - A B| <= scale |A| |B| + floor."""

    scale: float
    floor: float


@dataclass(frozen=True)
class OutputComparison:
    """A launch's output against A B computed in float64 from the inputs as they were drawn (never
    from the buffers the kernel was given, which it may have overwritten)."""

    wrong: int
    """Elements outside the bound (NaN and infinities included)."""
    inputs_changed: int
    """Elements of A and B whose buffers no longer hold what was drawn."""
    squared_error: float
    """The sum of (C - A B)^2 (infinite or NaN where an element is not finite)."""
    squared_reference: float
    """The sum of (A B)^2."""


class ClockReading(Protocol):
    """A reading of the device's clock, taken when it was asked for and read later."""

    def mhz(self) -> str:
        """The clock in MHz, or '?' where it could not be read."""
        ...


class TimedGemm(Protocol):
    """One GEMM shape's device-resident inputs, and the kernels timed on them."""

    @property
    def dims(self) -> tuple[int, int, int]:
        """(M, K, N)."""
        ...

    def add_kernel(
        self, label: str, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int]
    ) -> None:
        """Load a compiled kernel to be launched under `label` with this block and tile."""
        ...

    def add_library_gemm(self, label: str) -> None:
        """The vendor library's FP32 GEMM (cuBLAS), launched under `label`, as context."""
        ...

    def renew_inputs(self) -> None:
        """Fresh A and B, in place, from the seed's stream."""
        ...

    def poison_output(self, label: str, bits: int) -> None:
        """Fill `label`'s output with these 32-bit patterns (checks.correctness.POISON_BITS)."""
        ...

    def flush_l2(self) -> None:
        """Evict the inputs from the L2 cache (write a buffer twice its size)."""
        ...

    def synchronize(self) -> None:
        """Wait until everything queued on the device has finished."""
        ...

    def queue_launch(self, label: str) -> Callable[[], float]:
        """Queue one launch of `label` (without waiting for it); returns what reads its seconds
        on the device, queued work excluded (waiting until it has run)."""
        ...

    def queue_compare(self, label: str, bound: ErrorBound) -> Callable[[], OutputComparison]:
        """Queue the comparison of `label`'s output as it is now against A B (float64, from the
        inputs as drawn), and of its inputs' buffers against those; returns what reads it
        (waiting until it has run)."""
        ...

    def clock_reading(self) -> ClockReading:
        """Start a reading of the device's SM clock."""
        ...

    def timer_name(self, label: str) -> str:
        """What `queue_launch` measures `label` with, as pytest-benchmark's JSON names a timer."""
        ...

"""The check of every timed launch: inputs drawn afresh before it, its output compared with A B
(float64, computed after it) element by element, and its accuracy held to float32's as a whole.

Why fresh inputs for every launch: were A and B the same each time, a kernel could compute C
once, keep it in a `__device__` array and copy it out on later launches (a copy is far faster
than the product), and every output would be right. Drawn before each launch, outside the timed
region, the inputs are new to the kernel every time: a result kept from an earlier launch is
worthless, and the answer to this launch's inputs does not exist anywhere while it runs (the
reference is computed after the launch, from inputs nobody could know before).

The reference is computed from the check's own copies of the inputs, never from the buffers the
kernel was given: a kernel may cast away `const` and overwrite A and B (zeros, say, to match a C
of zeros). The kernel's buffers are compared with those copies after every launch too: a kernel
that writes into its inputs fails.

Why two tests:
1. element by element, the bound of `checks/tolerance.py` (proven for every correct kernel,
   whatever its order of summation): it catches unwritten elements, wrong rows, skipped terms;
2. the relative error of the whole output, ||C - AB||_F / ||AB||_F, against
   PRECISION_FACTOR * sqrt(K) * u. The elementwise bound is a worst case that grows like K, and
   at K = 2048 it admits products rounded to TF32 or half precision, whose errors grow like
   sqrt(K). On random inputs, float32 arithmetic in any order of summation stays near
   0.3 sqrt(K) u (sequential accumulation, the worst order, simulated: 0.29-0.31 for K = 64 to
   2048), while inputs rounded to TF32 give about 100 sqrt(K) u at K = 2048 (the same
   simulation): a limit of 4 is 13 times above float32's worst and 25 times below TF32. The
   output has millions of elements, so this average does not fluctuate.

On the GPU the comparison is two small kernels of the grader's own (`launch_compare.cu`,
compiled and cached like a student's) around two DGEMMs: CuPy's generic element-wise operations
cost about half a second of first-use set-up in every grading process (measured on the H200),
as much as the rest of the timing stage.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader.checks.tolerance import ABSOLUTE_FLOOR, UNIT_ROUNDOFF, within_bound

PRECISION_FACTOR = 4.0
_DEVICE_SOURCE = Path(__file__).with_name("launch_compare.cu")


@dataclass(frozen=True)
class LaunchVerdict:
    """What the check found in one timed launch's output."""

    wrong: int
    """Elements outside the elementwise bound (never written, NaN, or off)."""
    relative_error: float
    """||C - AB||_F / ||AB||_F (infinite when an element is not finite)."""
    precision_limit: float
    """The largest relative error float32 arithmetic gives at this K."""
    inputs_changed: int = 0
    """Elements of A and B the kernel overwrote."""

    @property
    def ok(self) -> bool:
        return (
            self.wrong == 0
            and self.inputs_changed == 0
            and self.relative_error <= self.precision_limit
        )


@dataclass
class LaunchCheck:
    """The timed launches' inputs (the device arrays every timed kernel is bound to) and the
    check of each launch's output."""

    a: Any
    """float32 M x K."""
    b: Any
    """float32 K x N."""
    draw: Callable[[tuple[int, ...]], Any]
    """Fresh values uniform in [-1, 1], float32, of the given shape (from the run's seed)."""
    factor: float
    """The elementwise bound's factor (the spec's tolerance)."""

    arch: str | None = None
    """Where the arrays are CuPy's: the GPU architecture to build the comparison kernels for."""
    _pristine: tuple[Any, Any] = field(init=False, repr=False)
    _device: _DeviceComparison | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._pristine = (self.a.copy(), self.b.copy())

    def renew(self) -> None:
        """New inputs, in place: before every timed launch, outside the timed region."""
        self._pristine = (self.draw(self.a.shape), self.draw(self.b.shape))
        self.a[...] = self._pristine[0]
        self.b[...] = self._pristine[1]

    def verdict(self, output: Any) -> LaunchVerdict:
        k = self.a.shape[1]
        given, pristine = (self.a, self.b), self._pristine
        if isinstance(output, np.ndarray):
            sums = _host_comparison(given, pristine, output, self.factor)
        else:
            if self._device is None:
                assert self.arch is not None, "a LaunchCheck on the GPU needs its arch"
                self._device = _DeviceComparison(self.a.shape, self.b.shape, self.arch)
            # the kernel computes tolerance.error_bound as scale * |A| |B| + floor
            scale, floor = self.factor * k * UNIT_ROUNDOFF, k * ABSOLUTE_FLOOR
            sums = self._device.compare(given, pristine, output, scale, floor)
        bad, changed, d2, r2 = sums
        relative = math.sqrt(d2 / r2) if math.isfinite(d2) and r2 > 0 else math.inf
        limit = PRECISION_FACTOR * math.sqrt(k) * UNIT_ROUNDOFF
        return LaunchVerdict(bad, relative, limit, changed)


def _host_comparison(
    given: tuple[Any, Any], pristine: tuple[Any, Any], output: Any, factor: float
) -> tuple[int, int, float, float]:
    """Elements outside the bound, input elements overwritten, sum of squared errors, sum of
    squared reference (NumPy)."""
    changed = sum(int(np.count_nonzero(g != p)) for g, p in zip(given, pristine, strict=True))
    a, b = (x.astype(np.float64) for x in pristine)
    reference = a @ b
    good = within_bound(output, reference, np.abs(a) @ np.abs(b), a.shape[1], factor)
    difference = output.astype(np.float64) - reference
    with np.errstate(invalid="ignore", over="ignore"):
        d2, r2 = float(np.sum(difference * difference)), float(np.sum(reference * reference))
    return int(good.size - np.count_nonzero(good)), changed, d2, r2


class _DeviceComparison:
    """The same comparison on the GPU: the check's copies of the inputs widened to float64 (and
    their magnitudes) by one kernel, which also counts where the kernel's buffers differ from
    them; A B and |A| |B| by DGEMM; then one pass over the output."""

    def __init__(self, a_shape: tuple[int, int], b_shape: tuple[int, int], arch: str) -> None:
        import cupy as cp

        from grader.compiler import CompileFailure, compile_kernel
        from grader.source import KernelSource

        source = KernelSource(_DEVICE_SOURCE.read_text(), _DEVICE_SOURCE.name)
        compiled = compile_kernel(source, "compare_output", {}, arch)
        if isinstance(compiled, CompileFailure):
            raise RuntimeError(f"the grader's comparison kernel: {compiled.message}")
        module = cp.RawModule(path=str(compiled.cubin_path))
        self._widen = module.get_function("widen")
        self._compare = module.get_function("compare_output")
        m, k = a_shape
        n = b_shape[1]
        self._wide = [
            cp.empty(shape, dtype=cp.float64) for shape in ((m, k), (m, k), (k, n), (k, n))
        ]
        self._reference = cp.empty((m, n), dtype=cp.float64)
        self._magnitude = cp.empty((m, n), dtype=cp.float64)
        self._counts = cp.zeros(2, dtype=cp.uint64)
        self._sums = cp.zeros(2, dtype=cp.float64)
        self._cp = cp

    def compare(
        self,
        given: tuple[Any, Any],
        pristine: tuple[Any, Any],
        output: Any,
        scale: float,
        floor: float,
    ) -> tuple[int, int, float, float]:
        cp = self._cp
        a, abs_a, b, abs_b = self._wide
        self._counts.fill(0)
        self._sums.fill(0)
        changed = self._counts[1:]
        for kernels, copy, wide, magnitude in zip(
            given, pristine, (a, b), (abs_a, abs_b), strict=True
        ):
            widening = (copy, kernels, wide, magnitude, np.int64(copy.size), changed)
            self._widen((264,), (256,), widening)
        cp.matmul(a, b, out=self._reference)
        cp.matmul(abs_a, abs_b, out=self._magnitude)
        comparing = (output, self._reference, self._magnitude, np.int64(output.size))
        bounds = (np.float64(scale), np.float64(floor), self._counts, self._sums)
        self._compare((264,), (256,), (*comparing, *bounds))
        bad, inputs_changed = (int(x) for x in self._counts.get())
        d2, r2 = (float(x) for x in self._sums.get())
        return bad, inputs_changed, d2, r2


def describe(verdict: LaunchVerdict, elements: int) -> str:
    """What was wrong with a launch's output, in words."""
    if verdict.inputs_changed:
        return (
            f"the kernel wrote into its inputs ({verdict.inputs_changed:,} elements of A and B "
            "changed): A and B are read-only"
        )
    if verdict.wrong:
        return f"{verdict.wrong:,} of {elements:,} elements of C wrong"
    return (
        f"less accurate than float32 arithmetic: relative error {verdict.relative_error:.2e}, "
        f"where float32 in any order of summation stays below {verdict.precision_limit:.2e} "
        "(products in TF32 or half precision, or terms of the sum left out?)"
    )

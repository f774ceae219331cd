"""The check of every timed launch: inputs drawn afresh before it, its output compared with A B
(float64, computed after it) element by element, and its accuracy held to float32's as a whole.

Why fresh inputs for every launch: were A and B the same each time, a kernel could compute C
once, keep it in a `__device__` array and copy it out on later launches (a copy is far faster
than the product), and every output would be right. Drawn before each launch, outside the timed
region, the inputs are new to the kernel every time: a result kept from an earlier launch is
worthless, and the answer to this launch's inputs does not exist anywhere while it runs (the
reference is computed after the launch, from inputs nobody could know before).

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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.checks.tolerance import ABSOLUTE_FLOOR, UNIT_ROUNDOFF

PRECISION_FACTOR = 4.0


@dataclass(frozen=True)
class LaunchVerdict:
    """What the check found in one timed launch's output."""

    wrong: int
    """Elements outside the elementwise bound (never written, NaN, or off)."""
    relative_error: float
    """||C - AB||_F / ||AB||_F (infinite when an element is not finite)."""
    precision_limit: float
    """The largest relative error float32 arithmetic gives at this K."""

    @property
    def ok(self) -> bool:
        return self.wrong == 0 and self.relative_error <= self.precision_limit


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

    def renew(self) -> None:
        """New inputs, in place: before every timed launch, outside the timed region."""
        self.a[...] = self.draw(self.a.shape)
        self.b[...] = self.draw(self.b.shape)

    def verdict(self, output: Any) -> LaunchVerdict:
        xp = _array_module(output)
        a, b = self.a.astype(xp.float64), self.b.astype(xp.float64)
        k = a.shape[1]
        reference = a @ b
        bound = self.factor * k * UNIT_ROUNDOFF * (xp.abs(a) @ xp.abs(b)) + k * ABSOLUTE_FLOOR
        difference = output.astype(xp.float64) - reference
        with np.errstate(invalid="ignore"):
            good = xp.abs(difference) <= bound  # NaN compares False
        wrong = int(good.size - int(xp.count_nonzero(good)))
        if wrong and not bool(xp.isfinite(difference).all()):
            relative = math.inf
        else:
            relative = float(xp.linalg.norm(difference) / xp.linalg.norm(reference))
        limit = PRECISION_FACTOR * math.sqrt(k) * UNIT_ROUNDOFF
        return LaunchVerdict(wrong, relative, limit)


def describe(verdict: LaunchVerdict, elements: int) -> str:
    """What was wrong with a launch's output, in words."""
    if verdict.wrong:
        return f"{verdict.wrong:,} of {elements:,} elements of C wrong"
    return (
        f"less accurate than float32 arithmetic: relative error {verdict.relative_error:.2e}, "
        f"where float32 in any order of summation stays below {verdict.precision_limit:.2e} "
        "(products in TF32 or half precision, or terms of the sum left out?)"
    )


def _array_module(array: Any) -> Any:
    """NumPy or CuPy, whichever holds `array` (CuPy only where a GPU is in use)."""
    if isinstance(array, np.ndarray):
        return np
    import cupy

    return cupy

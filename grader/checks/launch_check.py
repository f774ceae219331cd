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

The comparison itself runs where the inputs live, behind the backend's TimedGemm (on the GPU,
two small kernels of the grader's own around two DGEMMs: backends/gpu/comparison.py); the timing
loop (grader.timing) draws the inputs afresh and poisons the output around every launch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from grader.backends.timed_gemm import ErrorBound, TimedGemm
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
    inputs_changed: int = 0
    """Elements of A and B the kernel overwrote."""

    @property
    def ok(self) -> bool:
        return (
            self.wrong == 0
            and self.inputs_changed == 0
            and self.relative_error <= self.precision_limit
        )


@dataclass(frozen=True)
class LaunchCheck:
    """The check of each timed launch's output, on the timed GEMM's inputs."""

    gemm: TimedGemm
    factor: float
    """The elementwise bound's factor (the spec's tolerance)."""

    def queue(self, label: str) -> Callable[[], LaunchVerdict]:
        """Queue the check of `label`'s output as it is now; returns what reads the verdict."""
        k = self.gemm.dims[1]
        # tolerance.error_bound: factor K u |A| |B| + K floor
        bound = ErrorBound(self.factor * k * UNIT_ROUNDOFF, k * ABSOLUTE_FLOOR)
        found = self.gemm.queue_compare(label, bound)
        limit = PRECISION_FACTOR * math.sqrt(k) * UNIT_ROUNDOFF

        def verdict() -> LaunchVerdict:
            comparison = found()
            d2, r2 = comparison.squared_error, comparison.squared_reference
            relative = math.sqrt(d2 / r2) if math.isfinite(d2) and r2 > 0 else math.inf
            return LaunchVerdict(comparison.wrong, relative, limit, comparison.inputs_changed)

        return verdict

    def verdict(self, label: str) -> LaunchVerdict:
        return self.queue(label)()

    def queue_problem(self, label: str) -> Callable[[], str | None]:
        """Queue the check of `label`'s output; returns what reads what is wrong with it, in
        words (None when it is right)."""
        verdict = self.queue(label)
        m, _, n = self.gemm.dims

        def problem() -> str | None:
            found = verdict()
            return None if found.ok else describe(found, m * n)

        return problem

    def problem(self, label: str) -> str | None:
        """What is wrong with `label`'s output, in words; None when it is right."""
        return self.queue_problem(label)()


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

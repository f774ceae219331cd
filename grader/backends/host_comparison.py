"""The comparison of a launch's output with A B in NumPy, on the host: the reference the GPU's
comparison kernels (gpu/comparison.py) are held to, and the comparison of host stand-ins."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from grader.backends.timed_gemm import ErrorBound, OutputComparison

FloatArray = npt.NDArray[np.float32]


def compare_on_host(
    given: tuple[FloatArray, FloatArray],
    drawn: tuple[FloatArray, FloatArray],
    output: FloatArray,
    bound: ErrorBound,
) -> OutputComparison:
    """`output` against drawn[0] @ drawn[1] in float64; `given` (the kernel's buffers) against
    `drawn` (the inputs as they were drawn)."""
    changed = sum(int(np.count_nonzero(g != d)) for g, d in zip(given, drawn, strict=True))
    a, b = (x.astype(np.float64) for x in drawn)
    reference = a @ b
    magnitude = np.abs(a) @ np.abs(b)
    with np.errstate(invalid="ignore", over="ignore"):
        difference = output.astype(np.float64) - reference
        good = np.isfinite(output) & (np.abs(difference) <= bound.scale * magnitude + bound.floor)
        d2, r2 = float(np.sum(difference * difference)), float(np.sum(reference * reference))
    return OutputComparison(int(good.size - np.count_nonzero(good)), changed, d2, r2)

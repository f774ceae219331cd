"""The error bound a float32 GEMM must meet, elementwise, against a float64 reference.

For a dot product of length K evaluated in float32, in *any* order of summation, with or without
fused multiply-adds, the classic bound (Higham, Accuracy and Stability of Numerical Algorithms,
section 3.1) is

    |fl(a . b) - a . b| <= gamma_K * (|a| . |b|),   gamma_K = K u / (1 - K u),   u = 2^-24.

For K <= 16384, K u < 0.001, so gamma_K < 1.001 K u: a factor c = 1 already covers every correct
kernel, whatever its summation order. The course uses c = 2 (the spec may change it) so that a
right kernel never fails on rounding from intrinsics or contraction choices the compiler makes,
while a kernel that drops even one term of the sum (an error of one product |a_k b_k|, 1/4 on
average for inputs uniform in [-1, 1]) fails at most elements: the bound is about
2 K u (|a| . |b|) ~ 2 * 1024 * 6e-8 * 256 = 0.03 for K = 1024, and a dropped tile of 16 terms
fails essentially every element.

A small absolute floor keeps products that underflow to subnormals from failing a right kernel.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

UNIT_ROUNDOFF = 2.0**-24
ABSOLUTE_FLOOR = 2.0**-100


def error_bound(
    magnitude: npt.NDArray[np.float64], k: int, factor: float
) -> npt.NDArray[np.float64]:
    """The largest admissible |C - C_ref| per element; `magnitude` is |A| @ |B| in float64."""
    return factor * k * UNIT_ROUNDOFF * magnitude + k * ABSOLUTE_FLOOR


def within_bound(
    result: npt.NDArray[np.float32],
    reference: npt.NDArray[np.float64],
    magnitude: npt.NDArray[np.float64],
    k: int,
    factor: float,
) -> npt.NDArray[np.bool_]:
    """True where `result` is finite and within the bound. NaN and Inf are never within it."""
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(result.astype(np.float64) - reference)
        return np.isfinite(result) & (error <= error_bound(magnitude, k, factor))

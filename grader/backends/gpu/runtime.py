"""CuPy itself: importing it, the CUDA errors it raises, and launching a kernel with a geometry
(from backends.geometry: the grid is never computed here or by a caller)."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.backends.base import KernelRuntimeError
from grader.backends.geometry import Geometry


class GpuUnavailableError(Exception):
    """No usable CUDA device; the message says why."""


def cupy_version() -> str:
    """CuPy's version; ImportError where it is not installed."""
    import cupy

    return str(cupy.__version__)


def import_cupy() -> Any:
    """The cupy module, or GpuUnavailableError saying why there is none."""
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise GpuUnavailableError(f"CuPy is not installed ({exc})") from None
    return cupy


def short(exc: BaseException) -> str:
    """An error's first line (its type's name where it has no text)."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def cuda_errors(cp: Any) -> tuple[type[BaseException], ...]:
    """The exceptions CuPy raises for a failed CUDA call."""
    return (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError)


def load_function(cp: Any, cubin_path: str, symbol: str) -> Any:
    """The launchable function `symbol` of a cubin (a RawModule over it)."""
    try:
        return cp.RawModule(path=cubin_path).get_function(symbol)
    except cuda_errors(cp) as exc:
        raise KernelRuntimeError(short(exc)) from None


def launch(
    function: Any, geometry: Geometry, a: Any, b: Any, c: Any, dims: tuple[int, ...]
) -> None:
    """Queue one launch of a GEMM kernel: (A, B, C, M, K, N) over `geometry`; does not wait."""
    m, k, n = dims
    grid, block = (*geometry.grid, 1), (*geometry.block, 1)
    function(grid, block, (a, b, c, np.int32(m), np.int32(k), np.int32(n)))

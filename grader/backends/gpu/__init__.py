"""The GPU backend (CuPy over CUDA, device 0): the only package that imports CuPy.

backend.py is the Backend itself; runtime.py imports CuPy and launches kernels (the one place a
grid reaches CUDA); timed_gemm.py holds the device side of timing (inputs, outputs, L2 flush,
cuBLAS); comparison.py checks a timed output on the device; clock.py reads the SM clock."""

from __future__ import annotations

from grader.backends.gpu.backend import GpuBackend
from grader.backends.gpu.runtime import GpuUnavailableError, cupy_version

__all__ = ["GpuBackend", "GpuUnavailableError", "cupy_version"]

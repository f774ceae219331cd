"""The one interface every backend offers: load a compiled kernel, run it on guarded buffers,
compute the float64 reference. Nothing exercise-specific lives in a backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from grader.compiler import CompiledKernel
from grader.results import DeviceInfo

FloatArray = npt.NDArray[np.float32]
DoubleArray = npt.NDArray[np.float64]


class KernelRuntimeError(Exception):
    """The kernel failed on the device (illegal address, launch failure, ...): the text says how.

    After one of these the device context may be unusable: the worker reports and exits."""


@dataclass(frozen=True)
class Geometry:
    grid: tuple[int, int]
    block: tuple[int, int]


@dataclass(frozen=True)
class GemmLaunch:
    """Flat host buffers with guard regions, and where each matrix starts inside its buffer."""

    a: FloatArray
    b: FloatArray
    c: FloatArray
    offset: int
    m: int
    k: int
    n: int
    geometry: Geometry


@dataclass(frozen=True)
class GemmOutput:
    """The three buffers as they were after the launch, guards included."""

    a: FloatArray
    b: FloatArray
    c: FloatArray


class Backend(Protocol):
    """How a compiled kernel is run. Implementations: backends.gpu (CuPy)."""

    @property
    def device(self) -> DeviceInfo: ...

    @property
    def arch(self) -> str:
        """The compile target, e.g. `sm_90`."""
        ...

    def run_gemm(self, kernel: CompiledKernel, launch: GemmLaunch) -> GemmOutput:
        """Copy the buffers in, launch once, wait, copy all three back."""
        ...

    def reference(self, a: FloatArray, b: FloatArray) -> tuple[DoubleArray, DoubleArray]:
        """A @ B and |A| @ |B| in float64."""
        ...

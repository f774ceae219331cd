"""The one interface every backend offers: load a compiled kernel, run it on guarded buffers,
compute the float64 reference, and (where kernels are timed) the primitives of a timed GEMM.
Nothing exercise-specific lives in a backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from grader.backends.compiler import CompiledKernel
from grader.backends.geometry import Geometry
from grader.backends.timed_gemm import TimedGemm
from grader.results import DeviceInfo
from grader.source import KernelSource
from grader.spec import Shape

if TYPE_CHECKING:  # numpy only where arrays are made: a process that reads the course needs none
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float32]
    DoubleArray = npt.NDArray[np.float64]


class UnsupportedKernelError(Exception):
    """The kernel uses something this backend cannot run faithfully (the CPU emulator refuses
    such constructs rather than mis-run them); the message names it and its line."""


class KernelRuntimeError(Exception):
    """The kernel failed on the device (illegal address, launch failure, ...): the text says how.

    `context_lost`: the device context may be unusable afterwards (CUDA), so the worker reports
    and exits, and a fresh one carries on."""

    def __init__(
        self, message: str, *, context_lost: bool = True, symptom: str = "runtime_error"
    ) -> None:
        super().__init__(message)
        self.context_lost = context_lost
        self.symptom = symptom
        """`runtime_error`, or `timeout` for a launch that ran out of its time."""


@dataclass(frozen=True)
class Preparation:
    """What making a kernel ready to launch cost: reported as its own stage, before any check's
    clock starts."""

    seconds: float
    cached: bool
    """Nothing was compiled: the build came from the cache."""
    detail: str


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
    """How a compiled kernel is run. Implementations: backends.gpu (CuPy), backends.cpu (fibers)."""

    @property
    def device(self) -> DeviceInfo: ...

    @property
    def arch(self) -> str:
        """The compile target, e.g. `sm_90`."""
        ...

    @property
    def times_kernels(self) -> bool:
        """Whether kernels are timed here (a GPU); the CPU emulator grades correctness only."""
        ...

    def l2_bytes(self) -> int | None:
        """The device's L2 cache in bytes (None where there is no such cache to speak of)."""
        ...

    def prepare(
        self, source: KernelSource, compiled: CompiledKernel, defines: dict[str, int]
    ) -> Preparation:
        """Make the kernel ready to launch (load the cubin, or build the CPU program)."""
        ...

    def launches(self, m: int, k: int, n: int, requested: int) -> int:
        """How many launches a case of this shape gets when the spec asks for `requested`."""
        ...

    def extra_time_s(self, m: int, k: int, n: int, launches: int) -> float:
        """Seconds added to the spec's time limit for this many launches of this shape."""
        ...

    def run_gemm(self, launch: GemmLaunch) -> GemmOutput:
        """Copy the buffers in, launch once, wait, copy all three back."""
        ...

    def reference(self, a: FloatArray, b: FloatArray) -> tuple[DoubleArray, DoubleArray]:
        """A @ B and |A| @ |B| in float64."""
        ...

    def timed_gemm(self, shape: Shape, seed: int) -> TimedGemm:
        """Device-resident inputs of this shape (drawn from `seed`'s own stream) for kernels to
        be timed on; only where `times_kernels`."""
        ...

    def trial_launch(
        self, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int], size: int
    ) -> str:
        """Launch once on zero size x size inputs: the error's first line, or '' if it ran (a
        launch expected to fail, e.g. too many threads per block); only where `times_kernels`."""
        ...

    def take_warnings(self) -> list[str]:
        """Warnings gathered since the last call (e.g. threads that exited before a barrier)."""
        ...

    def close(self) -> None:
        """Release what the backend holds for the kernel (the CPU backend's running programs)."""
        ...

    def recycle(self) -> bool:
        """Ready this backend for another submission in the same process: wait for the device,
        release every buffer and module of the last one (the CPU backend: end its programs).
        False where it cannot be (a lost CUDA context): then the process ends, and a fresh one
        takes the next submission."""
        ...

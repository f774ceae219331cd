"""The GPU backend: CuPy loads the NVRTC cubin (RawModule) and launches it on device 0."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from grader.backends.base import (
    DoubleArray,
    FloatArray,
    GemmLaunch,
    GemmOutput,
    KernelRuntimeError,
    Preparation,
)
from grader.compiler import CompiledKernel
from grader.results import DeviceInfo
from grader.source import KernelSource


class GpuUnavailableError(Exception):
    """No usable CUDA device; the message says why."""


def _version(number: int) -> str:
    return f"{number // 1000}.{number % 1000 // 10}"


class GpuBackend:
    def __init__(self) -> None:
        try:
            import cupy
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise GpuUnavailableError(f"CuPy is not installed ({exc})") from None
        self._cupy: Any = cupy
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            raise GpuUnavailableError(f"no usable CUDA GPU: {_short(exc)}") from None
        if count == 0:
            raise GpuUnavailableError("no CUDA GPU found")
        runtime = cupy.cuda.runtime
        properties = runtime.getDeviceProperties(0)
        self._cc = f"{properties['major']}{properties['minor']}"
        name = properties["name"]
        self._device = DeviceInfo(
            backend="gpu",
            name=name.decode() if isinstance(name, bytes) else str(name),
            detail=f"sm_{self._cc}, driver {_version(runtime.driverGetVersion())}, "
            f"CUDA runtime {_version(runtime.runtimeGetVersion())}, CuPy {cupy.__version__}",
        )
        self._function: Any = None

    @property
    def device(self) -> DeviceInfo:
        return self._device

    @property
    def arch(self) -> str:
        return f"sm_{self._cc}"

    @property
    def times_kernels(self) -> bool:
        return True

    def load_function(self, compiled: CompiledKernel) -> Any:
        """The launchable CuPy function of a compiled kernel (RawModule over its cubin)."""
        cp = self._cupy
        try:
            module = cp.RawModule(path=str(compiled.cubin_path))
            return module.get_function(compiled.symbol)
        except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as exc:
            raise KernelRuntimeError(_short(exc)) from None

    def l2_bytes(self) -> int:
        cp = self._cupy
        return int(cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrL2CacheSize, 0))

    def prepare(
        self, source: KernelSource, compiled: CompiledKernel, defines: dict[str, int]
    ) -> Preparation:
        started = time.monotonic()
        self._function = self.load_function(compiled)
        return Preparation(time.monotonic() - started, cached=False, detail="cubin loaded")

    def launches(self, m: int, k: int, n: int, requested: int) -> int:
        return requested

    def extra_time_s(self, m: int, k: int, n: int, launches: int) -> float:
        return 0.0

    def run_gemm(self, launch: GemmLaunch) -> GemmOutput:
        cp = self._cupy
        try:
            function = self._function
            # Fresh device buffers on every launch, filled from the host: nothing left in the
            # memory pool by an earlier launch can show through.
            a, b, c = (cp.asarray(x) for x in (launch.a, launch.b, launch.c))
            o = launch.offset
            grid = (*launch.geometry.grid, 1)
            block = (*launch.geometry.block, 1)
            args = (a[o:], b[o:], c[o:], np.int32(launch.m), np.int32(launch.k), np.int32(launch.n))
            function(grid, block, args)
            cp.cuda.runtime.deviceSynchronize()
            return GemmOutput(a=a.get(), b=b.get(), c=c.get())
        except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as exc:
            raise KernelRuntimeError(_short(exc)) from None

    def reference(self, a: FloatArray, b: FloatArray) -> tuple[DoubleArray, DoubleArray]:
        cp = self._cupy
        a64 = cp.asarray(a, dtype=cp.float64)
        b64 = cp.asarray(b, dtype=cp.float64)
        product = (a64 @ b64).get()
        magnitude = (cp.abs(a64) @ cp.abs(b64)).get()
        return product, magnitude

    def close(self) -> None:
        """Nothing to release: the CUDA context lives as long as the grading process."""

    def take_warnings(self) -> list[str]:
        return []


def _short(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

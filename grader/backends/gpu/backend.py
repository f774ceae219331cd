"""The GPU backend: CuPy loads the NVRTC cubin (RawModule) and launches it on device 0."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from grader.backends.base import (
    GemmLaunch,
    GemmOutput,
    KernelRuntimeError,
    Preparation,
)
from grader.backends.compiler import CompiledKernel
from grader.backends.geometry import launch_geometry
from grader.backends.gpu.memory import ScrubbedPool, uses_device_heap
from grader.backends.gpu.runtime import (
    GpuUnavailableError,
    cuda_errors,
    import_cupy,
    launch,
    load_function,
    short,
)
from grader.backends.timed_gemm import TimedGemm
from grader.results import DeviceInfo
from grader.source import KernelSource
from grader.spec import Shape

if TYPE_CHECKING:
    from grader.backends.base import DoubleArray, FloatArray


def _version(number: int) -> str:
    return f"{number // 1000}.{number % 1000 // 10}"


class GpuBackend:
    def __init__(self) -> None:
        cupy = import_cupy()
        self._cupy: Any = cupy
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            raise GpuUnavailableError(f"no usable CUDA GPU: {short(exc)}") from None
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
        self._memory = ScrubbedPool(cupy)
        self._heap_used = False
        """Whether a kernel loaded here used the device's own heap (then no reuse)."""

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
        if uses_device_heap(compiled.cubin_path.read_bytes()):
            self._heap_used = True
        return load_function(self._cupy, str(compiled.cubin_path), compiled.symbol)

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

    def run_gemm(self, launch_: GemmLaunch) -> GemmOutput:
        cp = self._cupy
        try:
            # Fresh device buffers on every launch, filled from the host: nothing left in the
            # memory pool by an earlier launch can show through.
            a, b, c = (cp.asarray(x) for x in (launch_.a, launch_.b, launch_.c))
            o = launch_.offset
            dims = (launch_.m, launch_.k, launch_.n)
            launch(self._function, launch_.geometry, a[o:], b[o:], c[o:], dims)
            cp.cuda.runtime.deviceSynchronize()
            return GemmOutput(a=a.get(), b=b.get(), c=c.get())
        except cuda_errors(cp) as exc:
            raise KernelRuntimeError(short(exc)) from None

    def reference(self, a: FloatArray, b: FloatArray) -> tuple[DoubleArray, DoubleArray]:
        cp = self._cupy
        a64 = cp.asarray(a, dtype=cp.float64)
        b64 = cp.asarray(b, dtype=cp.float64)
        product = (a64 @ b64).get()
        magnitude = (cp.abs(a64) @ cp.abs(b64)).get()
        return product, magnitude

    def timed_gemm(self, shape: Shape, seed: int) -> TimedGemm:
        from grader.backends.gpu.timed_gemm import GpuTimedGemm

        return GpuTimedGemm(self._cupy, self.load_function, shape, seed, self.l2_bytes(), self.arch)

    def trial_launch(
        self, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int], size: int
    ) -> str:
        cp = self._cupy
        try:
            function = self.load_function(compiled)
            a = cp.zeros(size * size, dtype=cp.float32)
            c = cp.zeros(size * size, dtype=cp.float32)
            geometry = launch_geometry(block, tile, size, size)
            launch(function, geometry, a, a, c, (size, size, size))
            cp.cuda.runtime.deviceSynchronize()
        except Exception as exc:  # the launch is expected to fail: report how
            return short(exc)
        return ""

    def close(self) -> None:
        """Nothing to release: the CUDA context lives as long as the grading process."""

    def recycle(self) -> bool:
        self._function = None
        return self._memory.release() and not self._heap_used

    def take_warnings(self) -> list[str]:
        return []

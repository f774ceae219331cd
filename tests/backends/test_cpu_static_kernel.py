"""A `static __global__` kernel: NVRTC lowers it to the name it would have without `static` (a GPU
grades ex1's solution made static 100/100, on an H100), while g++ gives it internal linkage and
another name (`_ZL...`). The CPU program reaches it by either, so the CPU backend grades it as a
GPU does instead of refusing it; a build with neither name in it is refused, not run."""

from __future__ import annotations

import numpy as np
import pytest

from grader.backends.base import UnsupportedKernelError
from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import CpuBackend, CpuUnavailableError, check_toolchain
from grader.backends.cpu_build import build
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape

try:
    TOOLCHAIN = check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

STATIC = """
static __global__ void scale(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M * N) C[i] = 2.0f * A[i] + B[i];
}
"""


def test_a_static_kernel_runs_on_the_cpu() -> None:
    source = KernelSource(STATIC, "scale.cu")
    compiled = compile_kernel(source, "scale", {})
    assert isinstance(compiled, CompiledKernel), compiled
    shape = Shape(1, 64, 64)  # C is 1 x 64, as are A and B's first row
    a = np.arange(64, dtype=np.float32).reshape(1, 64)
    b = np.ones((64, 64), dtype=np.float32)
    launch = make_launch(a, b, shape, LaunchSpec(block=(32, 1), tile=(32, 1)))
    backend = CpuBackend()
    try:
        backend.prepare(source, compiled, {})
        c = backend.run_gemm(launch).c[launch.offset : launch.offset + 64]
    finally:
        backend.close()
    assert np.array_equal(c, 2.0 * a.ravel() + 1.0)


def test_a_build_without_the_kernels_symbol_is_refused() -> None:
    # the harness reaches the kernel weakly: without this check, a launch would call nothing
    source = KernelSource(STATIC.replace("static ", ""), "scale.cu")
    with pytest.raises(UnsupportedKernelError, match="no kernel of the symbol NVRTC gave it"):
        build(source, {}, "_Z5otherPKfS0_Pfiii", TOOLCHAIN, checked_too=False)

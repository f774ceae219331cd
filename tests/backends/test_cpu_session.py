"""One CPU program serves every launch of a build, so `__device__` variables keep their values
from launch to launch as on a GPU; a program that dies costs its launch only."""

from __future__ import annotations

import numpy as np
import pytest

from grader.backends.base import KernelRuntimeError
from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import CpuBackend, CpuUnavailableError, check_toolchain
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

COUNTER = """
__device__ int launches;
__global__ void count(const float *A, const float *B, float *C, int M, int K, int N)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        launches += 1;
        C[0] = (float)launches;
        if (A[0] > 100.0f) { int *p = 0; *p = 1; }  // a fault when asked
    }
}
"""


def _backend() -> CpuBackend:
    source = KernelSource(COUNTER, "count.cu")
    compiled = compile_kernel(source, "count", {})
    assert isinstance(compiled, CompiledKernel), compiled
    backend = CpuBackend()
    backend.prepare(source, compiled, {})
    return backend


def _launch(backend: CpuBackend, a0: float = 0.0) -> float:
    a = np.full((1, 1), a0, dtype=np.float32)
    launch = make_launch(a, a, Shape(1, 1, 1), LaunchSpec(block=(1, 1), tile=(1, 1)))
    output = backend.run_gemm(launch)
    return float(output.c[launch.offset])


def test_device_variables_keep_their_values_between_launches() -> None:
    backend = _backend()
    try:
        assert [_launch(backend) for _ in range(3)] == [1.0, 2.0, 3.0]
    finally:
        backend.close()


def test_a_program_that_dies_is_replaced_by_a_fresh_one() -> None:
    backend = _backend()
    try:
        assert _launch(backend) == 1.0
        with pytest.raises(KernelRuntimeError, match=r"count\.cu:8: store to null pointer"):
            _launch(backend, a0=1000.0)
        assert _launch(backend) == 1.0  # a new program: its __device__ memory starts afresh
    finally:
        backend.close()


def test_a_new_build_starts_afresh() -> None:
    backend = _backend()
    try:
        assert _launch(backend) == 1.0
        source = KernelSource(COUNTER, "count.cu")
        compiled = compile_kernel(source, "count", {})
        assert isinstance(compiled, CompiledKernel)
        backend.prepare(source, compiled, {})
        assert _launch(backend) == 1.0
    finally:
        backend.close()

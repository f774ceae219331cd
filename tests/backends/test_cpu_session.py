"""One CPU program serves every launch of a build, so `__device__` variables keep their values
from launch to launch as on a GPU; a program that dies costs its launch only."""

from __future__ import annotations

import resource

import numpy as np
import pytest

from grader.backends.base import KernelRuntimeError
from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import (
    CHECKED_LIMIT,
    CpuBackend,
    CpuUnavailableError,
    check_toolchain,
    cpu_seconds,
)
from grader.checks.correctness import make_launch
from grader.sandbox.settings import SANDBOX_ENV
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
        // a fault when asked: a null pointer neither compiler sees (NVVM makes a trap of a store
        // through one it sees, g++ drops a store through one read back from a volatile)
        if (A[0] > 100.0f) { int *p = (int *)(unsigned long)(M - 1); *p = 1; }
    }
}
"""


ONE = Shape(1, 1, 1)

SPIN = """
__global__ void spin(const float *A, const float *B, float *C, int M, int K, int N)
{
    volatile float x = A[0];
    while (x < 1.0f) x = x * 0.5f;  // endless: A[0] is 0
    C[0] = x;
}
"""


def _backend(text: str = COUNTER, name: str = "count") -> CpuBackend:
    source = KernelSource(text, f"{name}.cu")
    compiled = compile_kernel(source, name, {})
    assert isinstance(compiled, CompiledKernel), compiled
    backend = CpuBackend()
    backend.prepare(source, compiled, {})
    return backend


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _launch(backend: CpuBackend, a0: float = 0.0, shape: Shape = ONE) -> float:
    """C[0] after one launch of one-thread blocks on inputs of `shape` whose A[0] is a0."""
    a = np.zeros((shape.m, shape.k), dtype=np.float32)
    a[0, 0] = a0
    b = np.zeros((shape.k, shape.n), dtype=np.float32)
    launch = make_launch(a, b, shape, LaunchSpec(block=(1, 1), tile=(1, 1)))
    output = backend.run_gemm(launch)
    return float(output.c[launch.offset])


def test_device_variables_keep_their_values_between_launches() -> None:
    backend = _backend()
    try:
        assert [_launch(backend) for _ in range(3)] == [1.0, 2.0, 3.0]
    finally:
        backend.close()


def test_device_variables_are_one_copy_for_small_and_large_shapes() -> None:
    # small shapes ran in the checked program, large ones in the fast one: two copies, where a
    # GPU's module has one (red team, round 11)
    backend = _backend()
    try:
        large = Shape(1, 2048, 1025)  # past the checked build's limit; one block with x 0
        assert large.m * large.k * large.n > CHECKED_LIMIT
        counts = [_launch(backend), _launch(backend, shape=large), _launch(backend)]
        assert counts == [1.0, 2.0, 3.0]
    finally:
        backend.close()


def test_a_program_that_dies_is_replaced_by_a_fresh_one() -> None:
    backend = _backend()
    try:
        assert _launch(backend) == 1.0
        # a kernel with __device__ variables runs in the fast program alone: a fault is a signal
        with pytest.raises(KernelRuntimeError, match=r"killed by SIGSEGV"):
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


def test_an_endless_launch_gets_its_cpu_time_allowance_and_less_than_a_second_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # RLIMIT_CPU counts whole seconds: the program sets it from its exact CPU time so far, so
    # that the launch gets all of its allowance, and a hang is reported within a second of it.
    # Unsandboxed, the program is this process's own child, whose CPU time it is told on reaping
    monkeypatch.setenv(SANDBOX_ENV, "off")
    allowance = cpu_seconds(1, 1, 1)
    backend = _backend(SPIN, "spin")
    try:
        before = _children_cpu_s()
        with pytest.raises(KernelRuntimeError, match=f"CPU-time limit of {allowance:.1f} s"):
            _launch(backend)
        used = _children_cpu_s() - before  # the program's start-up, and the launch
    finally:
        backend.close()
    assert allowance <= used < allowance + 1.5

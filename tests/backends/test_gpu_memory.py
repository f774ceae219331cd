"""What a serving GPU child must not carry from one submission to the next, checked where it can
be without a GPU: kernels that use the device's own heap are recognised from their cubin (NVRTC
runs here), however the source spells the call."""

from __future__ import annotations

import pytest

from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.gpu.memory import uses_device_heap
from grader.source import KernelSource, read_source
from tests.conftest import ROOT

HEAP = """
extern "C" __global__ void k(const float *A, const float *B, float *C, int M, int K, int N)
{
    void *(*allocate)(size_t) = malloc;  // called through a pointer: no call of malloc to see
    float *kept = (float *)allocate(64);
    kept[0] = A[0];
    C[0] = kept[0];
}
"""
NEW = """
extern "C" __global__ void k(const float *A, const float *B, float *C, int M, int K, int N)
{
    float *kept = new float[16];
    kept[0] = A[0];
    C[0] = kept[0];
}
"""


def _cubin(source: KernelSource, name: str, defines: dict[str, int]) -> bytes:
    compiled = compile_kernel(source, name, defines, "sm_90")
    assert isinstance(compiled, CompiledKernel), compiled
    return compiled.cubin_path.read_bytes()


@pytest.mark.parametrize("text", [HEAP, NEW], ids=["malloc through a pointer", "new"])
def test_a_kernel_using_the_device_heap_is_recognised(text: str) -> None:
    assert uses_device_heap(_cubin(KernelSource(text, "kernel.cu"), "k", {}))


def test_the_course_kernels_do_not_use_it() -> None:
    solution = read_source(ROOT / "solutions/ex4-register-tiling/kernel.cu")
    assert not uses_device_heap(_cubin(solution, "matmul_tiled_2x2", {"TILE_SIZE": 16}))

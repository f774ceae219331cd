"""File-scope __device__ variables are found by name and line, and named in a failing kernel's
hint; functions, __constant__ data and variables inside kernels are not."""

from __future__ import annotations

from grader.checks.device_globals import DeviceVariable, device_variables, shared_by_blocks_hint
from grader.source import KernelSource

TILES = """#define T 16
__device__ float As[T][T];
__device__ volatile int counter = 0;
__constant__ float table[4];
__device__ __forceinline__ float twice(float x) { return 2 * x; }
template <int N> __device__ float scaled(float x) { return N * x; }
__global__ void k(float *C)
{
    __shared__ float tile[T];
    __device__ float *never;
}
"""


def test_file_scope_device_variables_are_found_with_their_lines() -> None:
    found = device_variables(KernelSource(TILES, "kernel.cu"))
    assert found == [DeviceVariable("As", 2), DeviceVariable("counter", 3)]


def test_the_hint_names_them_and_points_to_shared_memory() -> None:
    hint = shared_by_blocks_hint(KernelSource(TILES, "kernel.cu"))
    assert hint is not None
    assert hint.startswith("As (line 2), counter (line 3): __device__ variables")
    assert "__shared__" in hint


def test_a_kernel_without_them_gets_no_hint() -> None:
    assert shared_by_blocks_hint(KernelSource("__global__ void k(float *c) {}\n", "k.cu")) is None

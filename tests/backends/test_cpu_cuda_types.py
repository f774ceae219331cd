"""The CPU runtime's built-in types are CUDA's: `uint3` (threadIdx, blockIdx) and `dim3`
(blockDim, gridDim) are two types, each converting to the other as in CUDA's vector_types.h. A
kernel that computed only where they were one type passed on the CPU and wrote nothing on a GPU
(red team, round 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from tests.backends.sessions import SAME_TYPE, assert_writes_nothing_as_on_a_gpu, graded_as_ex1

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

NAIVE = """
    {dims}
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {{
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }}
}}
"""
KERNEL = (
    "__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)\n{"
)


@pytest.mark.slow
def test_a_kernel_that_computes_only_where_uint3_is_dim3_fails_as_on_a_gpu(
    small_course: Path,
) -> None:
    dims = "if (!same_type<uint3, dim3>::value) return;  // a GPU leaves here"
    report = graded_as_ex1(small_course, SAME_TYPE + KERNEL + NAIVE.format(dims=dims))
    assert_writes_nothing_as_on_a_gpu(report)


@pytest.mark.slow
def test_uint3_and_dim3_convert_to_each_other_as_in_cuda(small_course: Path) -> None:
    dims = (
        'static_assert(!same_type<uint3, dim3>::value, "two types");\n'
        "    const dim3 thread = threadIdx; const uint3 grid = gridDim;\n"
        "    if (thread.x != threadIdx.x || grid.y != gridDim.y) return;"
    )
    report = graded_as_ex1(small_course, SAME_TYPE + KERNEL + NAIVE.format(dims=dims))
    # graded here in full: no check left to a GPU (as one the CPU build refuses would be)
    assert report.passed and not report.needs_gpu, [c.message for c in report.checks]


@pytest.mark.slow
def test_a_right_kernel_that_calls_cuda_s_float_overloads_passes(small_course: Path) -> None:
    # abs, sqrt and pow of a float are CUDA's float overloads: with the C library's alone, abs
    # truncated to an int on the CPU, and this right kernel failed there (red team, round 7)
    body = """
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float x = A[row * K + k] * B[k * N + col];
            acc += x < 0.0f ? -abs(x) : sqrt(pow(abs(x), 2.0f)) * (abs(x) > 0.0f);
        }
        C[row * N + col] = acc;
    }
}
"""
    report = graded_as_ex1(small_course, KERNEL + body)
    assert report.passed and not report.needs_gpu, [c.message for c in report.checks]

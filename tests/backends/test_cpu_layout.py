"""Where the CPU program keeps A, B and C: one after another, as a GPU's memory pool places three
allocations made in a row, fenced by inaccessible pages. A kernel that reads far past A (sizes
hard-coded for a larger matrix) reads B and C, the grader's values, the same in every run and
at full speed; before, it read the program's heap, whose pointers are subnormal floats (a 4x
slower launch) and differ from process to process. One that reads past C's mapping faults."""

from __future__ import annotations

import numpy as np
import pytest

from grader.backends.base import GemmLaunch, KernelRuntimeError
from grader.backends.cpu import CHECKED_LIMIT, CpuUnavailableError, check_toolchain
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape
from tests.backends.sessions import prepared_cpu_backend

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

SHAPE = Shape(256, 256, 256)  # above CHECKED_LIMIT: the fast build, which has no sanitizer
TILES = LaunchSpec(block=(16, 16), tile=(16, 16))
ALIGNMENT = 512  # bytes: where each buffer starts in the mapping

READ_PAST = """
__global__ void shifted(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int row = blockIdx.y * 16 + threadIdx.y;
    const int col = blockIdx.x * 16 + threadIdx.x;
    if (row < M && col < N) C[row * N + col] = READ;
}
"""


def _launch() -> GemmLaunch:
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, size=(SHAPE.m, SHAPE.k)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(SHAPE.k, SHAPE.n)).astype(np.float32)
    return make_launch(a, b, SHAPE, TILES)


def _run(read: str, launch: GemmLaunch) -> np.ndarray:
    """C's elements (guards left out) after one launch of a fresh program whose threads each
    store `read`."""
    source = KernelSource(READ_PAST.replace("READ", read), "kernel.cu")
    with prepared_cpu_backend(source, "shifted", {}) as backend:
        c = backend.run_gemm(launch).c
    return c[launch.offset : launch.offset + SHAPE.m * SHAPE.n]


def test_the_shape_runs_in_the_fast_build() -> None:
    assert SHAPE.m * SHAPE.k * SHAPE.n > CHECKED_LIMIT


def test_a_kernel_reading_far_past_a_reads_b_in_every_run() -> None:
    launch = _launch()
    a_bytes = launch.a.size * 4
    distance = -(-a_bytes // ALIGNMENT) * ALIGNMENT // 4  # from A[0] to B[0], in floats
    b = launch.b[launch.offset : launch.offset + SHAPE.k * SHAPE.n]
    runs = [_run(f"A[row * N + col + {distance}]", launch) for _ in range(2)]
    assert np.array_equal(runs[0].view(np.uint32), b.view(np.uint32))
    assert np.array_equal(runs[1].view(np.uint32), b.view(np.uint32))


def test_a_kernel_reading_past_the_last_buffer_faults() -> None:
    launch = _launch()
    past_c = launch.c.size - launch.offset  # C[past_c] is the first float after C's guard
    with pytest.raises(KernelRuntimeError, match="SIGSEGV"):
        _run(f"C[{past_c} + row * N + col]", launch)

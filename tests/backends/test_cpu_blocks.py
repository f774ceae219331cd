"""Several blocks of a grid run at once on the CPU backend, as on a GPU: each resident block has
its own threads, blockIdx and shared memory, and the scheduler moves from one block to another at
barriers. So tiles kept in `__device__` globals (one copy for the whole grid) are overwritten by
other blocks, which passed when blocks ran one after another; and the result of such a race is
the same for the same launches."""

from __future__ import annotations

from contextlib import AbstractContextManager

import numpy as np
import numpy.typing as npt
import pytest

from grader.backends.cpu import CpuBackend, CpuUnavailableError, check_toolchain
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape
from tests.backends.sessions import prepared_cpu_backend
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

SOLUTION = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
DEVICE_TILES = (ROOT / "solutions/ex1-non-square/wrong/device_global_tiles.cu").read_text()
TILES = LaunchSpec(block=(16, 16), tile=(16, 16))
# 64^3 runs in the checked build (AddressSanitizer), 256^3 in the fast one (above 2^21).
SHAPES = [Shape(64, 64, 64), Shape(256, 256, 256)]
ORDERS = 3  # launches rotate through the ascending, descending and shuffled thread orders

Floats = npt.NDArray[np.float32]


def _backend(text: str, name: str) -> AbstractContextManager[CpuBackend]:
    return prepared_cpu_backend(KernelSource(text, "kernel.cu"), name, {"TILE_SIZE": 16})


def _inputs(shape: Shape) -> tuple[Floats, Floats]:
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, size=(shape.m, shape.k)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(shape.k, shape.n)).astype(np.float32)
    return a, b


def _run(backend: CpuBackend, shape: Shape, a: Floats, b: Floats) -> Floats:
    launch = make_launch(a, b, shape, TILES)
    c = backend.run_gemm(launch).c
    return c[launch.offset : launch.offset + shape.m * shape.n].reshape(shape.m, shape.n)


def _wrong_fraction(c: Floats, a: Floats, b: Floats) -> float:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = 1e-4 * (np.abs(a64) @ np.abs(b64)) + 1e-6
    right = np.abs(c - a64 @ b64) <= bound  # NaN compares false: wrong
    return float(1.0 - right.mean())


def test_the_variant_differs_from_the_solution_only_in_where_its_tiles_live() -> None:
    assert "__device__ float a_tile[TILE_SIZE][TILE_SIZE];" in DEVICE_TILES
    assert "__shared__" not in DEVICE_TILES.split("__global__", 1)[1]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_tiles_in_device_globals_are_overwritten_by_other_blocks(shape: Shape) -> None:
    a, b = _inputs(shape)
    with _backend(DEVICE_TILES, "matmul_tiled") as backend:
        fractions = [_wrong_fraction(_run(backend, shape, a, b), a, b) for _ in range(ORDERS)]
    # 16 blocks and more, two resident at a time: most of C is wrong in every order
    assert all(f > 0.5 for f in fractions), fractions


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_same_kernel_with_shared_tiles_is_right_in_every_order(shape: Shape) -> None:
    a, b = _inputs(shape)
    with _backend(SOLUTION, "matmul_tiled") as backend:
        fractions = [_wrong_fraction(_run(backend, shape, a, b), a, b) for _ in range(ORDERS)]
    assert fractions == [0.0] * ORDERS


PER_BLOCK = """
__global__ void who(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float column[16];   // one value per column of the block
    __shared__ int mine[2];        // which block this is, written by one thread (after column:
                                   // before it, g++ would pad it apart, left to a GPU)
    const int row = blockIdx.y * 16 + threadIdx.y;
    const int col = blockIdx.x * 16 + threadIdx.x;
    float seen = 0.0f;
    for (int round = 0; round < 4; ++round) {
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            mine[0] = blockIdx.x;
            mine[1] = blockIdx.y;
        }
        if (threadIdx.y == 0) column[threadIdx.x] = (float)(blockIdx.x * 16 + threadIdx.x);
        __syncthreads();  // other blocks run here and write the same __shared__ arrays
        const bool mine_still = mine[0] == (int)blockIdx.x && mine[1] == (int)blockIdx.y;
        seen += mine_still && column[threadIdx.x] == (float)col ? 1.0f : -1000.0f;
        __syncthreads();
    }
    const float id = (float)(blockIdx.y * 1000 + blockIdx.x);
    if (row < M && col < N) C[row * N + col] = id + seen / 8.0f;
}
"""


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_each_block_has_its_own_blockidx_and_shared_memory(shape: Shape) -> None:
    a, b = _inputs(shape)
    rows, cols = np.indices((shape.m, shape.n))
    expected = (rows // 16 * 1000 + cols // 16 + 0.5).astype(np.float32)
    with _backend(PER_BLOCK, "who") as backend:
        for _ in range(ORDERS):
            c = _run(backend, shape, a, b)
            assert np.array_equal(c, expected), np.argwhere(c != expected)[:5]


TICKETS = """
__device__ unsigned int ticket;  // counts on from launch to launch

__global__ void tickets(const float *A, const float *B, float *C, int M, int K, int N)
{
    const bool first = threadIdx.x == 0 && threadIdx.y == 0;
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    if (first) C[2 * block] = (float)atomicAdd(&ticket, 1u);      // when it started
    __syncthreads();
    __syncthreads();
    if (first) C[2 * block + 1] = (float)atomicAdd(&ticket, 1u);  // when it ended
}
"""


def test_blocks_overlap_and_start_in_an_order_that_is_not_row_major() -> None:
    shape = Shape(64, 1, 128)  # a grid of 8 x 4 blocks
    blocks = 8 * 4
    a, b = _inputs(shape)
    with _backend(TICKETS, "tickets") as backend:
        for _ in range(ORDERS):
            log = _run(backend, shape, a, b).ravel()[: 2 * blocks].astype(np.int64)
            log -= log.min()
            starts, ends = log[0::2], log[1::2]
            assert sorted(log.tolist()) == list(range(2 * blocks))
            # another block starts while this one waits at its barriers
            pairs = [(i, j) for i in range(blocks) for j in range(blocks)]
            assert any(starts[i] < starts[j] < ends[i] for i, j in pairs)
            assert list(np.argsort(starts)) != list(range(blocks))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_same_launches_give_the_same_wrong_results(shape: Shape) -> None:
    a, b = _inputs(shape)
    results = []
    for _ in range(2):
        with _backend(DEVICE_TILES, "matmul_tiled") as backend:
            results.append([_run(backend, shape, a, b) for _ in range(ORDERS)])
    first, second = results
    for one, other in zip(first, second, strict=True):
        assert np.array_equal(one, other, equal_nan=True)
    # and the three orders (seeds) race differently
    assert not np.array_equal(first[0], first[2], equal_nan=True)

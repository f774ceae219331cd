"""The error bound passes float32 GEMMs summed in other orders and fails one that drops a K tile."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from grader.checks.tolerance import within_bound

F32 = npt.NDArray[np.float32]


def _inputs(m: int, k: int, n: int, seed: int = 1) -> tuple[F32, F32]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    return a, b


def _sequential(a: F32, b: F32, order: range | list[int]) -> F32:
    """Plain float32 accumulation, one k at a time, in the given order (like one CUDA thread)."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for k in order:
        acc += np.outer(a[:, k], b[k, :]).astype(np.float32)
    return acc


def _tiled(a: F32, b: F32, tile: int) -> F32:
    """Per-tile partial sums added to a running float32 total (like the tiled kernel)."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for start in range(0, a.shape[1], tile):
        acc += _sequential(a, b, range(start, min(start + tile, a.shape[1])))
    return acc


def _reference(a: F32, b: F32) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return a64 @ b64, np.abs(a64) @ np.abs(b64)


@pytest.mark.parametrize("k", [1, 33, 512])
def test_correct_kernels_pass_whatever_their_summation_order(k: int) -> None:
    a, b = _inputs(24, k, 20)
    reference, magnitude = _reference(a, b)
    for result in (
        _sequential(a, b, range(k)),
        _sequential(a, b, list(reversed(range(k)))),
        _tiled(a, b, 16),
        _tiled(a, b, 7),
        (a @ b).astype(np.float32),  # BLAS: blocked and vectorised
    ):
        assert within_bound(result, reference, magnitude, k, factor=2.0).all()


def test_a_kernel_that_drops_one_k_tile_fails_everywhere() -> None:
    k = 512
    a, b = _inputs(24, k, 20)
    reference, magnitude = _reference(a, b)
    dropped = _sequential(a, b, [i for i in range(k) if not 256 <= i < 272])
    ok = within_bound(dropped, reference, magnitude, k, factor=2.0)
    assert ok.mean() < 0.01


def test_a_kernel_that_drops_a_single_product_fails_most_elements() -> None:
    k = 512
    a, b = _inputs(24, k, 20)
    reference, magnitude = _reference(a, b)
    dropped = _sequential(a, b, range(k - 1))
    assert within_bound(dropped, reference, magnitude, k, factor=2.0).mean() < 0.25


def test_nan_and_inf_never_pass() -> None:
    a, b = _inputs(4, 8, 4)
    reference, magnitude = _reference(a, b)
    result = _sequential(a, b, range(8))
    result[0, 0], result[1, 1] = np.nan, np.inf
    ok = within_bound(result, reference, magnitude, 8, factor=2.0)
    assert not ok[0, 0] and not ok[1, 1] and ok.sum() == 14

"""The check of every timed launch's output: float32 in any order of summation passes, skipped
work and lower precision fail, overwritten inputs are caught (on the host's comparison, which the
GPU's is held to in tests/test_gpu.py)."""

from __future__ import annotations

import numpy as np

from grader.checks.launch_check import PRECISION_FACTOR, LaunchCheck, LaunchVerdict
from tests.timing.host_gemm import HostTimedGemm, drawing


def _check(seed: int = 0, m: int = 64, k: int = 512, n: int = 48):  # type: ignore[no-untyped-def]
    draw = drawing(seed)
    gemm = HostTimedGemm(draw((m, k)), draw((k, n)), draw)
    return gemm.a, gemm.b, gemm, LaunchCheck(gemm, factor=2.0)


def _verdict(gemm: HostTimedGemm, check: LaunchCheck, output: np.ndarray) -> LaunchVerdict:
    def writes(a: np.ndarray, b: np.ndarray, out: np.ndarray, _: int) -> None:
        out[...] = output

    gemm.add_host_kernel("k", writes)
    gemm.queue_launch("k")
    return check.verdict("k")


def test_the_launch_check_passes_other_summation_orders() -> None:
    a, b, gemm, check = _check()
    # float32 sums in several orders and precisions: all within the proven bound
    forward = a @ b
    backward = (a[:, ::-1] @ b[::-1, :]).astype(np.float32)
    pairwise = sum(a[:, i : i + 16] @ b[i : i + 16, :] for i in range(0, 512, 16))
    sequential = np.zeros_like(forward)
    for i in range(512):
        sequential += a[:, i : i + 1] * b[i : i + 1, :]  # the least accurate order
    exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    for output in (forward, backward, pairwise, sequential, exact):
        verdict = _verdict(gemm, check, np.ascontiguousarray(output, dtype=np.float32))
        assert verdict.ok, verdict
        assert verdict.relative_error < verdict.precision_limit / 8
    assert check.problem("k") is None


def test_the_launch_check_catches_skipped_work() -> None:
    a, b, gemm, check = _check()
    right = a @ b
    unwritten = right.copy()
    unwritten[5, 7] = np.nan  # one element left poisoned
    assert _verdict(gemm, check, unwritten).wrong == 1
    assert check.problem("k") == "1 of 3,072 elements of C wrong"
    half_k = a[:, :256] @ b[:256, :]  # only half of K summed
    assert _verdict(gemm, check, half_k).wrong > 64 * 48 * 0.9
    some_k = (a[:, 16:] @ b[16:, :]) * (512 / 496)  # 1/32 of the terms left out, rescaled
    assert _verdict(gemm, check, some_k).wrong > 64 * 48 * 0.5
    one_off = right.copy()
    one_off[3, 9] += 0.05  # one element off by 0.05, over its bound of about 0.008
    assert _verdict(gemm, check, one_off).wrong == 1


def _tf32(x: np.ndarray) -> np.ndarray:
    """x with its mantissa rounded to TF32's 10 bits, as tensor cores read it."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def test_products_in_lower_precision_fail_though_every_element_is_within_bound() -> None:
    a, b, gemm, check = _check(m=64, k=2048, n=64)
    tf32 = (_tf32(a).astype(np.float64) @ _tf32(b).astype(np.float64)).astype(np.float32)
    verdict = _verdict(gemm, check, tf32)
    assert verdict.wrong == 0  # the worst-case elementwise bound admits TF32 at K = 2048
    assert verdict.relative_error > 10 * verdict.precision_limit
    assert not verdict.ok
    assert verdict.precision_limit == PRECISION_FACTOR * 2048**0.5 * 2.0**-24
    assert (check.problem("k") or "").startswith("less accurate than float32 arithmetic")


def test_inputs_overwritten_by_the_kernel_are_counted() -> None:
    a, b, gemm, check = _check()
    right = a @ b
    a[0, 0] += 1.0  # as a kernel that writes into its inputs
    verdict = _verdict(gemm, check, right)
    assert verdict.inputs_changed == 1 and not verdict.ok
    assert (check.problem("k") or "").startswith("the kernel wrote into its inputs (1 elements")


def test_renewing_draws_new_inputs_in_place() -> None:
    a, _, gemm, _ = _check()
    before_a, identity = a.copy(), id(gemm.a)
    gemm.renew_inputs()
    assert id(gemm.a) == identity and not np.array_equal(gemm.a, before_a)

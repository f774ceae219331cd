"""The CPU backend's two ways of switching fibers give the same program: the x86-64 switch it
uses here, and Boost.Context's, which it uses on other processors (forced here with
GG_PORTABLE_FIBERS). Both builds of each (fast, and AddressSanitizer's checked one) run ex1's
solution over several resident blocks in every thread order and must agree to the bit."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import numpy as np
import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import RUNTIME_DIR, build_flags
from tests.backends.programs import build_program
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

SYMBOL = "_Z12matmul_tiledPKfS0_Pfiii"  # matmul_tiled(const float*, const float*, float*, int...)
M, K, N = 40, 50, 60  # 4 x 3 blocks of 16 x 16 threads: several resident at once


def _program(work: Path, checked: bool, portable: bool) -> Path:
    text = "#define TILE_SIZE 16\n" + (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
    defines = ["-DGG_PORTABLE_FIBERS"] if portable else []
    return build_program(work, text, SYMBOL, checked, defines)


def _launches(program: Path, checked: bool, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """C after one launch in each thread order (ascending, descending, shuffled)."""
    request = b""
    for order in range(3):
        fields = [M, K, N, 0, (N + 15) // 16, (M + 15) // 16, 16, 16, order, order + 1,
                  int(checked), 60, a.size, b.size, M * N]  # fmt: skip
        request += " ".join(map(str, fields)).encode() + b"\n"
        request += a.tobytes() + b.tobytes() + np.full(M * N, np.nan, np.float32).tobytes()
    done = subprocess.run([str(program)], input=request, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    replies: list[np.ndarray] = []
    at = 0
    for _ in range(3):
        assert done.stdout[at : at + 3] == b"ok\n"
        at += 3 + 4 * (a.size + b.size)
        replies.append(np.frombuffer(done.stdout[at : at + 4 * M * N], np.float32).reshape(M, N))
        at += 4 * M * N
    return replies


@pytest.mark.parametrize("checked", [False, True], ids=["fast", "checked"])
def test_both_fiber_switches_give_the_right_product_bit_for_bit(
    tmp_path: Path, checked: bool
) -> None:
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, M * K).astype(np.float32)
    b = rng.uniform(-1, 1, K * N).astype(np.float32)
    expected = a.reshape(M, K).astype(np.float64) @ b.reshape(K, N).astype(np.float64)
    results = {}
    for portable in (False, True):
        results[portable] = _launches(_program(tmp_path, checked, portable), checked, a, b)
        for c in results[portable]:
            np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)
    for own, boost in zip(results[False], results[True], strict=True):
        assert own.tobytes() == boost.tobytes()


def test_the_switch_used_here_is_the_one_the_build_says() -> None:
    """On x86-64 the build uses its own switch; elsewhere Boost's (the test above covers both)."""
    done = subprocess.run(
        ["g++", *build_flags(False), "-I", str(RUNTIME_DIR), "-dM", "-E", "-x", "c++", "-"],
        input='#include "cuda_cpu_fibers.hpp"\n',
        capture_output=True,
        text=True,
        check=True,
    )
    own = "#define GG_ASM_FIBERS 1" in done.stdout
    assert own == (platform.machine() in ("x86_64", "AMD64"))

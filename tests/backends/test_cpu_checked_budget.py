"""A checked launch that runs far past what its shape needs goes on in the fast build: ex1's
`loop_1024_over_tile.cu` walks 1024 steps of K whatever K is, and at 1000x1x999 its checked
launch took 7.8 s of CPU against 1.3 s fast. Small allowances keep the checked build whole, so a
kernel that hangs at 1x1x1 is reported as soon as before. A shape that ran out once goes to the
fast build at once for the rest of the build's launches (the race check, the probes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grader.backends import cpu
from grader.backends.cpu import (
    CHECKED_BUDGET_FROM_S,
    CHECKED_LIMIT,
    CpuUnavailableError,
    check_toolchain,
    cpu_seconds,
)
from grader.backends.cpu_session import Session
from grader.checks.correctness import make_launch
from grader.source import read_source
from grader.spec import LaunchSpec, Shape
from tests.backends.sessions import prepared_cpu_backend
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

pytestmark = pytest.mark.slow
LOOP_1024 = ROOT / "solutions/ex1-non-square/wrong/loop_1024_over_tile.cu"


def test_a_checked_launch_over_its_budget_runs_in_the_fast_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[bool] = []  # the programs started, checked or not, in turn

    def counted(path: Path, checked: bool) -> Session:
        started.append(checked)
        return Session(path, checked)

    monkeypatch.setattr(cpu, "Session", counted)
    shape = Shape(1000, 1, 999)
    assert shape.m * shape.k * shape.n <= CHECKED_LIMIT  # a checked shape
    assert cpu_seconds(shape.m, shape.k, shape.n) >= CHECKED_BUDGET_FROM_S
    source = read_source(LOOP_1024)
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (1000, 1)).astype(np.float32)
    b = rng.uniform(-1, 1, (1, 999)).astype(np.float32)
    launch = make_launch(a, b, shape, LaunchSpec(block=(16, 16), tile=(16, 16)))
    with prepared_cpu_backend(source, "matmul_tiled", {"TILE_SIZE": 16}) as backend:
        c = backend.run_gemm(launch).c[launch.offset : launch.offset + 1000 * 999]
        first = list(started)
        backend.run_gemm(launch)  # the race check's launch, say
    assert np.array_equal(c.reshape(1000, 999), a @ b)  # one term per element: exact
    assert first == [True, False]  # the checked program ran out; the fast one ran the launch
    assert started == [True, False]  # the next launch of the shape: the fast program at once

"""The red team's files, graded as ex1 on both backends: none passes on the CPU and fails on a GPU,
and none passes on a GPU and fails on the CPU. "Needs a GPU" on the CPU is always allowed: it
gives no points and takes none. Each file under tests/data/gpu_tells/ was a way, once, to make
the CPU backend's verdict differ from a GPU's; the CPU-only tests pin what the CPU does with
each, this test what a GPU does (run it on one before a change to the CPU backend is done)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.course import load_course
from grader.grading import grade
from grader.results import CheckKind, Report
from grader.source import read_source
from tests.conftest import ROOT

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
EX1 = load_course(ROOT).find("ex1")
FILES = sorted((ROOT / "tests/data/gpu_tells").rglob("*.cu"))
SEED = 1
KNOWN_OPEN = {
    "tests/data/gpu_tells/round8/fma_contraction.cu": (
        "FMA contraction: NVRTC fuses a*a - c into one fma, g++ for x86-64 has none"
    ),
    "tests/data/gpu_tells/round25/eval_order_wrong_on_gpu.cu": (
        "a call's arguments: g++ evaluates them right to left, NVRTC left to right"
    ),
    "tests/data/gpu_tells/round25/eval_order_right_on_gpu.cu": (
        "a call's arguments: g++ evaluates them right to left, NVRTC left to right"
    ),
    "tests/data/gpu_tells/round9/builtin_twin_via_gview.cu": (
        "the kernel shares the runtime's address space: it rewrote gridDim through the runtime's "
        "own pointer, at a fixed offset from its __device__ variable"
    ),
}
"""Files whose CPU verdict a GPU contradicts, for reasons SECURITY.md names as open: each must
still disagree (one that agrees has been fixed: take it off the list)."""


def _grade(file: Path, backend: str) -> Report:
    return grade(EX1, read_source(file), seed=SEED, backend=backend, answers=None)


def _passes(report: Report) -> bool:
    """Every check passed, none of them left to a GPU."""
    correctness = [c for c in report.checks if c.kind == CheckKind.CORRECTNESS]
    return all(c.status == "passed" for c in report.checks) and bool(correctness)


def _fails(report: Report) -> bool:
    return any(c.status in ("failed", "error") for c in report.checks)


def _verdict(report: Report) -> str:
    points = f"{report.score:g}/{report.max_score:g}"
    return f"{'pass' if _passes(report) else 'fail' if _fails(report) else 'needs a GPU'} {points}"


def test_no_attack_file_gets_a_verdict_on_the_cpu_that_a_gpu_contradicts() -> None:
    assert len(FILES) > 50  # every round's files, found where they are
    with ThreadPoolExecutor(max_workers=4) as pool:
        gpu = list(pool.map(lambda file: _grade(file, "gpu"), FILES))
    with ThreadPoolExecutor(max_workers=12) as pool:
        cpu = list(pool.map(lambda file: _grade(file, "cpu"), FILES))
    table, problems = [], []
    for file, on_gpu, on_cpu in zip(FILES, gpu, cpu, strict=True):
        assert on_gpu.device.backend == "gpu" and on_cpu.device.backend == "cpu"
        name = str(file.relative_to(ROOT))
        table.append(f"{name}: GPU {_verdict(on_gpu)} | CPU {_verdict(on_cpu)}")
        why = ""
        if _passes(on_cpu) and not _passes(on_gpu):
            why = f"passes on the CPU, not on the GPU ({_verdict(on_gpu)})"
        if _passes(on_gpu) and _fails(on_cpu):
            why = f"passes on the GPU, fails on the CPU ({_verdict(on_cpu)})"
        if name in KNOWN_OPEN:
            why = "" if why else "agrees now: take it off KNOWN_OPEN"
        if why:
            problems.append(f"{name}: {why}")
    print("\n".join(table))
    assert problems == [], "\n".join(problems)

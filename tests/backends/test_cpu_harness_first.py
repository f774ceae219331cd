"""The CPU backend compiles the harness and the runtime in a unit of their own (runtime.cpp), apart
from the student's code (cpu_unit.unit_text), so nothing the file declares can change what the
harness calls. Each file under
tests/data/harness_reach passed ex1 on the CPU with an empty kernel (red team, round 4); on a GPU
its kernel writes nothing, and so it must fail here too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import KERNEL_ENTRY, KERNEL_HEADERS, RUNTIME_DIR, unit_text
from grader.source import KernelSource, find_refusals
from tests.backends.sessions import assert_writes_nothing_as_on_a_gpu, graded_as_ex1
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

ATTACKS = ROOT / "tests/data/harness_reach"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["write_template_fills_c.cu", "kernel_reference_named.cu"])
def test_a_file_s_declarations_cannot_change_what_the_harness_calls(
    small_course: Path, name: str
) -> None:
    # graded as a GPU grades it: C is never written, and nothing is left to a GPU
    report = graded_as_ex1(small_course, (ATTACKS / name).read_text(), name)
    assert_writes_nothing_as_on_a_gpu(report)


def test_the_kernel_s_unit_holds_no_harness_no_runtime_and_no_system_header() -> None:
    unit = unit_text("__global__ void matmul_tiled() {}\n")
    assert re.findall(r'#include\s*["<]([^">]+)', unit) == ["cuda_kernel.hpp"]
    headers = "".join((RUNTIME_DIR / name).read_text() for name in KERNEL_HEADERS)
    assert set(re.findall(r'#include\s*["<]([^">]+)', headers)) <= set(KERNEL_HEADERS)
    # the name the harness calls the kernel by cannot be written in a file
    refusals = find_refusals(KernelSource(f"__device__ void {KERNEL_ENTRY}() {{}}\n", "kernel.cu"))
    assert [r.message.split(" is not allowed")[0] for r in refusals] == [KERNEL_ENTRY]

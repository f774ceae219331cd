"""In the CPU backend's unit the harness comes before the student's code (cpu_unit.unit_text), so
nothing the file declares can change what the harness calls. Each file under
tests/data/harness_reach passed ex1 on the CPU with an empty kernel (red team, round 4); on a GPU
its kernel writes nothing, and so it must fail here too."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import unit_text
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


def test_the_harness_precedes_the_student_s_code_and_names_the_kernel_out_of_their_reach() -> None:
    unit = unit_text("__global__ void matmul_tiled() {}\n", "_Z12matmul_tiledv")
    assert unit.index('#include "harness_main.hpp"') < unit.index("matmul_tiled() {}")
    assert "_GG_kernel_0" in unit and "gg_kernel_0" not in unit.replace("_GG_kernel_0", "")
    # the names the harness gives its reference to the kernel cannot be written in a file
    refusals = find_refusals(KernelSource("__device__ void _GG_kernel_0() {}\n", "kernel.cu"))
    assert [r.message.split(" is not allowed")[0] for r in refusals] == ["_GG_kernel_0"]

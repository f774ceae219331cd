"""The cubin's sections, read as the ELF file it is: the `__device__` variables' size comes from
there, not from NVRTC's log, which quotes the student's lines (red team, round 12)."""

from __future__ import annotations

import pytest

from grader.backends import cubin
from grader.backends.compiler import CompiledKernel, _ptxas_part, compile_kernel
from grader.source import KernelSource

KERNEL = (
    "__device__ float table[3] = {1, 2, 3};\n"
    "__device__ int calls;\n"
    "__global__ void k(const float *A, const float *B, float *C, int M, int K, int N) {\n"
    "    int unused;  // 0 bytes gmem\n"
    "    C[0] = table[calls++ % 3];\n"
    "}\n"
)


def test_the_device_variables_are_the_cubin_s_global_sections_whatever_the_log_quotes() -> None:
    compiled = compile_kernel(KernelSource(KERNEL, "k.cu"), "k", {})
    assert isinstance(compiled, CompiledKernel), compiled
    sections = cubin.section_sizes(compiled.cubin_path.read_bytes())
    assert sections[".nv.global.init"] == 12 and sections[".nv.global"] == 4
    assert compiled.global_bytes == 16


def test_ptxas_s_part_of_the_log_starts_at_its_own_first_line() -> None:
    log = (
        'k.cu(4): warning #177-D: variable "unused" was declared but never referenced\n'
        "ptxas info    : 0 bytes gmem\n"  # as a quoted source line could read
        "\n"
        "ptxas info    : 16 bytes gmem\n"
        "ptxas info    : Used 8 registers\n"
    )
    assert _ptxas_part(log) == "ptxas info    : 16 bytes gmem\nptxas info    : Used 8 registers\n"
    assert _ptxas_part("no ptxas here") == ""


@pytest.mark.parametrize(
    "data", [b"", b"not an ELF file", b"\x7fELF\x01\x01", b"\x7fELF\x02\x01" + bytes(58)]
)
def test_what_is_not_a_cubin_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError, match="ELF"):
        cubin.global_bytes(data)

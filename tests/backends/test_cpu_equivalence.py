"""The CPU backend grades only a program that is the one NVRTC compiled: a source the two
compilers would read as different programs is refused, naming why."""

from __future__ import annotations

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_equivalence import NotSameProgramError, prove_same_program
from grader.backends.cpu_unit import build_macros
from grader.source import KernelSource

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

SIGNATURE = (
    "__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)"
)


def test_a_function_declared_but_never_defined_is_refused() -> None:
    # NVRTC compiles it to PTX that calls an undefined 'dprintf'; g++ would link libc's
    text = (
        'extern "C" __device__ int dprintf(int, const char *, ...);\n'
        + SIGNATURE
        + ('\n{ if (M < 0) dprintf(2, "x"); }\n')
    )
    source = KernelSource(text, "kernel.cu")
    with pytest.raises(NotSameProgramError, match=r"^kernel\.cu: calls 'dprintf', which it "):
        prove_same_program(source, {}, text, build_macros())

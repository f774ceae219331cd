"""A kernel must not be able to tell the CPU runtime from CUDA at compile time: every way it can
is a kernel that computes on the CPU and writes nothing on a GPU, and passes here (red team,
round 6: five such files each scored 100/100, Gradescope's path included). The built-ins have
CUDA's types and value categories, its overloads are the only ones, and no value a kernel can
name brings the runtime's namespace into argument-dependent lookup."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import RUNTIME_DIR, build_flags, unit_text
from tests.backends.sessions import SAME_TYPE, assert_writes_nothing_as_on_a_gpu, graded_as_ex1
from tests.conftest import ROOT, nvrtc_log

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

TELLS = ROOT / "tests/data/gpu_tells"

CUDA_TYPES = [
    # the built-in variables: const lvalues (`extern const __device__ uint3 threadIdx`)
    ("(threadIdx)", "const uint3 &"),
    ("(threadIdx.x)", "const unsigned &"),
    ("(blockIdx)", "const uint3 &"),
    ("(blockIdx.y)", "const unsigned &"),
    ("(blockDim)", "const dim3 &"),
    ("(blockDim.x)", "const unsigned &"),
    ("(gridDim)", "const dim3 &"),
    ("(warpSize)", "const int &"),
    ("warpSize", "const int"),
    # the shuffles' overloads (sm_30_intrinsics.h): a char or a bool is shuffled as an int
    ("__shfl_sync(0xffffffffu, 'a', 0)", "int"),
    ("__shfl_sync(0xffffffffu, true, 0)", "int"),
    ("__shfl_sync(0xffffffffu, (short)1, 0)", "int"),
    ("__shfl_sync(0xffffffffu, 1u, 0)", "unsigned"),
    ("__shfl_sync(0xffffffffu, 1l, 0)", "long"),
    ("__shfl_sync(0xffffffffu, 1ul, 0)", "unsigned long"),
    ("__shfl_sync(0xffffffffu, 1ll, 0)", "long long"),
    ("__shfl_sync(0xffffffffu, 1ull, 0)", "unsigned long long"),
    ("__shfl_sync(0xffffffffu, 1.0f, 0)", "float"),
    ("__shfl_sync(0xffffffffu, 1.0, 0)", "double"),
    ("__shfl_sync(0xffffffffu, Float{}, 0)", "float"),
    ("__shfl_up_sync(0xffffffffu, 'a', 1)", "int"),
    ("__shfl_down_sync(0xffffffffu, 'a', 1)", "int"),
    ("__shfl_xor_sync(0xffffffffu, 'a', 1)", "int"),
    ("__shfl_down_sync(0xffffffffu, 1.0f, 1u, 16)", "float"),
    ("__ballot_sync(0xffffffffu, 1)", "unsigned"),
    ("__any_sync(0xffffffffu, 1)", "int"),
    ("__all_sync(0xffffffffu, 1)", "int"),
    # min and max (crt/math_functions.h)
    ("max('a', 'b')", "int"),
    ("min((short)1, (short)2)", "int"),
    ("max(1, 2)", "int"),
    ("max(1, 2u)", "unsigned"),
    ("min(2u, 1)", "unsigned"),
    ("min(threadIdx.x, 3)", "unsigned"),
    ("max(1l, 2l)", "long"),
    ("max(1l, 2ul)", "unsigned long"),
    ("max(1ll, 2ll)", "long long"),
    ("min(1ll, 2ull)", "unsigned long long"),
    ("max(1.0f, 2.0f)", "float"),
    ("min(1.0, 2.0)", "double"),
    ("max(1.0f, 2.0)", "double"),
    ("min(1.0, 2.0f)", "double"),
    # the math functions' overloads at global scope (crt/math_functions.hpp, under NVRTC)
    ("abs(-1.5f)", "float"),
    ("abs(1ll)", "long long"),
    ("abs(1l)", "long"),
    ("abs(1)", "int"),
    ("abs(1.0)", "double"),
    ("sqrt(1.0f)", "float"),
    ("sqrt(1.0)", "double"),
    ("exp(1.0f)", "float"),
    ("fabs(1.0f)", "float"),
    ("floor(1.0f)", "float"),
    ("pow(1.0f, 2.0f)", "float"),
    ("pow(1.0f, 2)", "float"),
    ("atan2(1.0f, 2.0f)", "float"),
    ("isnan(1.0f)", "int"),
    ("isinf(1.0)", "int"),
    ("signbit(1.0f)", "int"),
    ("isfinite(1.0f)", "int"),
]

_PROBE = """
%s
struct Float {
    __device__ operator float() const { return 1.0f; }
};
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
%s
}
"""
_SYMBOL = "_Z12matmul_tiledPKfS0_Pfiii"


def _probe() -> str:
    asserts = "\n".join(
        f'    static_assert(same_type<decltype({expr}), {cuda}>::value, "TYPE#{i}");'
        for i, (expr, cuda) in enumerate(CUDA_TYPES)
    )
    return _PROBE % (SAME_TYPE, asserts)


def _failed(log: str) -> list[str]:
    """The table's rows whose static_assert fails in `log` (g++'s and NVRTC's messages)."""
    failed = {int(i) for i in re.findall(r"TYPE#(\d+)\b", log)}
    return [f"decltype({e}) is not {t}" for i, (e, t) in enumerate(CUDA_TYPES) if i in failed]


def test_the_table_holds_in_cuda_itself() -> None:
    log = nvrtc_log(_probe())
    assert "error" not in log, _failed(log) or log


def test_the_built_ins_and_overloads_have_cuda_s_types_on_the_cpu(tmp_path: Path) -> None:
    unit = tmp_path / "unit.cpp"
    unit.write_text(unit_text(_probe(), _SYMBOL))
    done = subprocess.run(
        ["g++", *build_flags(False), "-fsyntax-only", "-I", str(RUNTIME_DIR),
         "-DGG_KERNEL=_GG_kernel", str(unit)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, _failed(done.stderr) or done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adl_gg_probe.cu", "shfl_adl_hook.cu"])
def test_a_kernel_that_computes_only_where_it_finds_the_runtime_s_functions_fails(
    small_course: Path, name: str
) -> None:
    # adl_gg_probe: a call with a Conv<uint3> argument found gg::resident_blocks through the
    # namespace uint3 was declared in; shfl_adl_hook: the runtime's shuffle template called the
    # file's own bits_of. On a GPU, each kernel writes nothing.
    assert_writes_nothing_as_on_a_gpu(graded_as_ex1(small_course, (TELLS / name).read_text(), name))

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
from grader.backends.cpu_unit import RUNTIME_DIR, kernel_unit_flags, unit_text
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
    # CUDA's overloads of the atomics and the cached loads, and only those: an int converts
    ("atomicAdd((float *)0, 1)", "float"),
    ("atomicAdd((unsigned long long *)0, 1)", "unsigned long long"),
    ("atomicMax((long long *)0, 1)", "long long"),
    ("atomicCAS((unsigned short *)0, 1, 2)", "unsigned short"),
    ("atomicExch((float *)0, 1)", "float"),
    ("__ldg((const float *)0)", "float"),
    ("__ldg((const float4 *)0)", "float4"),
    ("__ldcs((const char *)0)", "char"),
    # every vector type, with its make_ function
    ("make_uint4(1, 2, 3, 4)", "uint4"),
    ("make_uchar2(1, 2)", "uchar2"),
    ("make_double3(1, 2, 3)", "double3"),
    ("make_ulonglong1(1)", "ulonglong1"),
    ("make_uint3(1, 2, 3)", "uint3"),
]

CUDA_FACTS = [
    # the C library's functions are neither noexcept nor constant expressions in CUDA
    "!noexcept(expf(1.0f))",
    "!noexcept(sqrt(1.0))",
    "!noexcept(fmaxf(1.0f, 2.0f))",
    "!noexcept(sqrt(1.0f))",
    "!noexcept(__fdividef(1.0f, 2.0f))",
    "!noexcept(atomicAdd((int *)0, 1))",
    "!noexcept(__ldg((const float *)0))",
    # sizes and alignments of the vector types (vector_types.h)
    *(
        f"sizeof({name}) == {size} && alignof({name}) == {align}"
        for name, size, align in [
            ("char1", 1, 1), ("char2", 2, 2), ("char3", 3, 1), ("char4", 4, 4),
            ("uchar2", 2, 2), ("short2", 4, 4), ("short3", 6, 2), ("short4", 8, 8),
            ("ushort4", 8, 8), ("int1", 4, 4), ("int2", 8, 8), ("int3", 12, 4), ("int4", 16, 16),
            ("uint2", 8, 8), ("uint4", 16, 16), ("long1", 8, 8), ("long2", 16, 16),
            ("long3", 24, 8), ("ulong2", 16, 16), ("longlong2", 16, 16), ("longlong3", 24, 8),
            ("ulonglong2", 16, 16), ("float1", 4, 4), ("float2", 8, 8), ("float3", 12, 4),
            ("float4", 16, 16), ("double1", 8, 8), ("double2", 16, 16), ("double3", 24, 8),
        ]
    ),
]  # fmt: skip
"""Facts about CUDA's names a kernel could test at compile time, asserted by NVRTC and by g++."""

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


def _probe() -> str:
    asserts = "\n".join(
        f'    static_assert(same_type<decltype({expr}), {cuda}>::value, "TYPE#{i}");'
        for i, (expr, cuda) in enumerate(CUDA_TYPES)
    )
    facts = "\n".join(
        f'    static_assert({fact}, "FACT#{i}");' for i, fact in enumerate(CUDA_FACTS)
    )
    return _PROBE % (SAME_TYPE, f"{asserts}\n{facts}")


def _failed(log: str) -> list[str]:
    """The table's rows whose static_assert fails in `log` (g++'s and NVRTC's messages)."""
    failed = {int(i) for i in re.findall(r"TYPE#(\d+)\b", log)}
    facts = {int(i) for i in re.findall(r"FACT#(\d+)\b", log)}
    return [
        *(f"decltype({e}) is not {t}" for i, (e, t) in enumerate(CUDA_TYPES) if i in failed),
        *(f"not {fact}" for i, fact in enumerate(CUDA_FACTS) if i in facts),
    ]


def test_the_table_holds_in_cuda_itself() -> None:
    log = nvrtc_log(_probe())
    assert "error" not in log, _failed(log) or log


def test_the_built_ins_and_overloads_have_cuda_s_types_on_the_cpu(tmp_path: Path) -> None:
    unit = tmp_path / "unit.cpp"
    unit.write_text(unit_text(_probe()))
    done = subprocess.run(
        ["g++", *kernel_unit_flags(False), "-fsyntax-only", "-I", str(RUNTIME_DIR), str(unit)],
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


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "libc_name_sfinae.cu",
        "cuda_name_sfinae.cu",
        "atomic_template_sfinae.cu",
        "ldg_template_sfinae.cu",
        "noexcept_libm.cu",
        "constexpr_sqrt_double.cu",
    ],
)
def test_a_kernel_that_computes_only_where_the_cpu_unit_declares_otherwise_fails(
    small_course: Path, name: str
) -> None:
    # red team, round 7: each found a declaration the CPU's unit had and CUDA has not (strlen,
    # through SFINAE; glibc's noexcept expf; a sqrt(4.0) that folds), or the other way round
    # (make_uint4; atomicAdd(float *, int), which converts the int in CUDA only; __ldg of a
    # struct, which only the CPU's template took). The kernel's unit now declares CUDA's names
    # alone (cuda_kernel.hpp): on a GPU, and now here, each kernel writes nothing.
    assert_writes_nothing_as_on_a_gpu(graded_as_ex1(small_course, (TELLS / name).read_text(), name))

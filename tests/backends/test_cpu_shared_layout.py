"""The block's shared memory as NVRTC declares it (its PTX) against where g++ put it (the
kernel's object): what the CPU build refuses to run (grader/backends/cpu_shared_layout.py; whole
kernels through the build: test_cpu_fast_build.py)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from grader.backends.cpu_shared_layout import (
    NvrtcShared,
    gpu_arrays,
    nvrtc_shared,
    readable,
    refusal,
)
from grader.backends.cpu_symbols import ObjectLayout, read_layout, read_object
from grader.backends.cpu_unit import build_flags

# as NVRTC 13 writes them (a char, a short[3], a float4[2], a double, an unnamed namespace's
# float[2], an int[2][3]); an extern array and the instructions are no declarations of its
_PTX = """
.extern .shared .align 16 .b8 dyn[];
\t.shared .align 1 .u8 _ZZ1kE1c;
\t.shared .align 2 .b8 _ZZ1kE1s[6];
\t.shared .align 16 .b8 _ZZ1kE2f4[32];
\t.shared .align 8 .f64 _ZZ1kE1d;
\t.shared .align 4 .b8 _ZN27_INTERNAL_00000000_4_k_cu_k29_GLOBAL__N__00000000_4_k_cu_k2axE[8];
\t.shared .align 4 .b8 grid[2][3];
\tst.shared.f32 \t[%r11], %f1;
"""


def test_the_ptx_s_shared_variables_are_read_in_order_with_their_alignments() -> None:
    # what the CPU build compares g++'s shared memory with, and aligns every variable to
    shared = nvrtc_shared(_PTX)
    assert shared.sizes == (1, 6, 32, 8, 8, 6)
    assert shared.alignments == (1, 2, 16, 8, 4, 4) and shared.alignment == 16
    assert shared.names[0] == "_ZZ1kE1c" and "dyn" not in shared.names
    assert nvrtc_shared("\tst.shared.f32 \t[%r11], %f1;\n") == NvrtcShared((), (), 0)


def test_a_shared_declaration_the_ptx_reader_cannot_size_gives_no_sizes() -> None:
    # a variable it cannot size must not be left out: the build leaves the kernel to a GPU
    assert nvrtc_shared(_PTX + "\t.shared .align 4 .b8 odd[4], other[4];\n").sizes is None


def test_names_read_alike_from_both_compilers() -> None:
    # NVRTC decorates what has internal linkage (`_INTERNAL_<hash>`), g++ does not (red team,
    # rounds 18 and 20); NVVM names the elements it splits off an array `_$_N`
    nvrtc = (
        "_ZN39_INTERNAL_00000000_9_kernel_cu_69da1f4741_GLOBAL__N__00000000_9_kernel_cu_69da1f474"
        "onesILi4EEE",
        "_ZZN39_INTERNAL_00000000_9_kernel_cu_69da1f4710zero_termsEvE4zero",
        "_ZZ3whoPKfS0_PfiiiE4mine_$_1",
    )
    gpp = ("_ZN12_GLOBAL__N_1L4onesILi4EEE", "_ZZL10zero_termsvE4zero", "_ZZ3whoPKfS0_PfiiiE4mine")
    assert readable(nvrtc) == readable(gpp)
    assert readable(gpp)[1] == "zero_terms()::zero"


def test_a_gpu_lays_arrays_out_in_order_each_at_its_own_alignment() -> None:
    # an int, float[3], a double, a float4: ptxas's layout, as the SASS of round 16 showed; and
    # an int[2] NVVM split in two, which lies where it lay
    names = ("_ZZ1kE1i", "_ZZ1kE1f", "_ZZ1kE1d", "_ZZ1kE1v", "_ZZ1kE1m_$_0", "_ZZ1kE1m_$_1")
    shared = NvrtcShared(names, (4, 12, 8, 16, 4, 4), 16, (4, 4, 8, 16, 4, 4))
    assert gpu_arrays(shared) == [
        ("k::i", 0, 4), ("k::f", 4, 12), ("k::d", 16, 8), ("k::v", 32, 16), ("k::m", 48, 8)
    ]  # fmt: skip


def _object(tmp_path: Path, code: str) -> ObjectLayout:
    """The object of `code` compiled as the CPU build compiles a kernel's unit (its section
    attribute for `__shared__` variables, aligned at 4), without NVRTC."""
    unit = tmp_path / "unit.cpp"
    shared = 'static __attribute__((section("gg_shared"), aligned(4)))'
    unit.write_text(f"#define SHARED {shared}\n" + code)
    obj = tmp_path / "unit.o"
    subprocess.run(
        ["g++", *build_flags(False), "-c", str(unit), "-o", str(obj)], check=True, timeout=60
    )
    return read_object(obj)


_KERNEL = "float *k(int n) { SHARED float terms[5]; return terms + n; }\n"
_NVRTC = NvrtcShared(("_ZZ1kiE5terms",), (20,), 4, (4,))
"""NVRTC's view of _KERNEL: its one array."""


@pytest.mark.parametrize(
    "code",
    [
        # a function's static outside gg_shared (a generic lambda's arrays, whatever its name)
        "static float *f(int n) { auto g = [](auto w) { SHARED float t[5]; return t + w; };"
        " return g(n); }\nfloat *use(int n) { return f(n); }\n",
        # a template's static (UNIQUE, in a section group)
        "template <int N> float *f() { SHARED float t[N]; return t; }\n"
        "float *use() { return f<5>(); }\n",
        # a variable template
        'template <int N> __attribute__((section("gg_shared"))) float v[N];\n'
        "float *use() { return v<5>; }\n",
    ],
    ids=["generic lambda", "function template", "variable template"],
)
def test_a_variable_g_plus_plus_keeps_outside_the_block_s_memory_is_refused(
    tmp_path: Path, code: str
) -> None:
    why = refusal(_object(tmp_path, _KERNEL + code), _NVRTC, "kernel.cu")
    assert "a variable that g++ does not place in the block's shared memory" in why, why


def test_an_array_nvrtc_declares_that_g_plus_plus_places_elsewhere_is_refused(
    tmp_path: Path,
) -> None:
    # an unnamed namespace's variable template: a local of .bss, neither a function's static nor
    # a template's UNIQUE one (red team, round 20); found as NVRTC's array missing from gg_shared
    code = "namespace { template <int N> float ones[N]; }\nfloat *use() { return ones<4>; }\n"
    nvrtc = NvrtcShared(
        ("_ZZ1kiE5terms", "_ZN39_INTERNAL_00000000_9_kernel_cu_69da1f4741_GLOBAL__N__00000000_9_"
         "kernel_cu_69da1f474onesILi4EEE"),
        (20, 16), 4, (4, 4),
    )  # fmt: skip
    why = refusal(_object(tmp_path, _KERNEL + code), nvrtc, "kernel.cu")
    assert "does not place in the block's shared memory (ones<4>)" in why, why


@pytest.mark.parametrize(
    ("code", "nvrtc"),
    [
        # an unused function's array after terms: g++ keeps it, NVVM does not (round 19)
        (_KERNEL + "float *unused(int n) { SHARED float spare[5]; return spare + n; }\n", _NVRTC),
        # two arrays of one size in the other order: NVVM put the kernel's first (round 20)
        (
            "static float *zero(int n) { SHARED float z[4]; return z + n; }\n"
            "float *k(int n) { SHARED float one[4]; return one + (int)zero(n)[0]; }\n",
            NvrtcShared(("_ZZ1kiE3one", "_ZZL4zeroiE1z"), (16, 16), 4, (4, 4)),
        ),
    ],
    ids=["an array NVVM removes", "another order"],
)
def test_arrays_g_plus_plus_lays_out_otherwise_than_a_gpu_are_refused(
    tmp_path: Path, code: str, nvrtc: NvrtcShared
) -> None:
    why = refusal(_object(tmp_path, code), nvrtc, "kernel.cu")
    assert "__shared__ arrays that g++ lays out otherwise than a GPU" in why, why


def test_the_arrays_nvrtc_declares_beside_device_variables_are_run(tmp_path: Path) -> None:
    # __device__ variables at namespace scope, with and without linkage, are no shared ones
    code = _KERNEL + "int launches;\nstatic int seen;\nint *use() { seen++; return &launches; }\n"
    layout = _object(tmp_path, code)
    assert refusal(layout, _NVRTC, "kernel.cu") == ""
    # and a PTX declaration this module cannot size refuses it, never counts for nothing
    unread = refusal(layout, replace(_NVRTC, sizes=None), "kernel.cu")
    assert "a __shared__ declaration in NVRTC's PTX the CPU backend can't read" in unread


_TWO_KERNELS = """
.func  (.param .b64 func_retval0) _Z10more_termsv()
{
	mov.u64 	%rd1, _ZZ10more_termsvE4more;
}
.visible .entry _Z5otherPf(
	.param .u64 _Z5otherPf_param_0
)
{
	st.shared.f32 	[_ZZ5otherPfE4zero], %f1;
}
.visible .entry _Z12matmul_tiledPKfS0_Pfiii(
	.param .u64 _Z12matmul_tiledPKfS0_Pfiii_param_0
)
{
	call.uni (retval0), _Z10more_termsv, ();
}
.visible .entry _Z5naivePf(
	.param .u64 _Z5naivePf_param_0
)
{
	ret;
}
	.shared .align 4 .b8 _ZZ10more_termsvE4more[16];
	.shared .align 4 .b8 _ZZ5otherPfE4zero[16];
"""


def test_the_kernels_that_reach_shared_variables_are_found() -> None:
    # ptxas lays out each kernel's shared memory apart (red team, round 21): one that names an
    # array, and one that calls a function (which may), reach them; one that does neither not
    assert nvrtc_shared(_TWO_KERNELS).kernels == ("_Z5otherPf", "_Z12matmul_tiledPKfS0_Pfiii")
    why = refusal(read_layout(""), nvrtc_shared(_TWO_KERNELS), "kernel.cu")
    assert "several kernels that reach __shared__ variables (other, matmul_tiled)" in why, why


_ONE_KERNEL_CALLING = """
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.func  (.param .b64 func_retval0) _Z10more_termsv()
{
	mov.u64 	%rd1, _ZZ10more_termsvE4more;
}
.visible .entry _Z12matmul_tiledPKfS0_Pfiii(
	.param .u64 _Z12matmul_tiledPKfS0_Pfiii_param_0
)
{
	call %rd2, (retval0), prototype_0;
	st.shared.f32 	[_ZZ12matmul_tiledPKfS0_PfiiiE3one], %f1;
}
	.shared .align 4 .b8 _ZZ10more_termsvE4more[16];
	.shared .align 4 .b8 _ZZ12matmul_tiledPKfS0_PfiiiE3one[16];
"""


def test_shared_variables_a_function_nvvm_kept_names_are_left_to_a_gpu() -> None:
    # ptxas put the helper's array (called through a pointer) after the kernel's own, where the
    # PTX and g++ have it first (red team, round 22); a declaration's body is no one's
    shared = nvrtc_shared(_ONE_KERNEL_CALLING)
    assert shared.kernels == ("_Z12matmul_tiledPKfS0_Pfiii",)
    assert shared.functions == ("_Z10more_termsv",)
    why = refusal(read_layout(""), shared, "kernel.cu")
    assert "__shared__ variables in a function that NVRTC does not inline (more_terms:" in why

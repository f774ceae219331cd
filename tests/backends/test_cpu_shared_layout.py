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
    gpu_layout,
    nvrtc_shared,
    object_listing,
    refusal,
    same_layout,
)
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


def test_the_ptx_s_shared_variables_are_read_in_order_with_the_strictest_alignment() -> None:
    # what the CPU build compares g++'s shared memory with, and aligns every variable to
    shared = nvrtc_shared(_PTX)
    assert shared.sizes == (1, 6, 32, 8, 8, 6)
    assert shared.alignment == 16
    assert len(shared.names) == 6 and "dyn" not in shared.names
    assert nvrtc_shared("\tst.shared.f32 \t[%r11], %f1;\n") == NvrtcShared(frozenset(), (), 0)
    assert shared.alignments == (1, 2, 16, 8, 4, 4)


def test_a_shared_declaration_the_ptx_reader_cannot_size_gives_no_sizes() -> None:
    # a variable it cannot size must not be left out: the build leaves the kernel to a GPU
    assert nvrtc_shared(_PTX + "\t.shared .align 4 .b8 odd[4], other[4];\n").sizes is None


def _listing(tmp_path: Path, code: str) -> str:
    """`readelf` of `code` compiled as the CPU build compiles a kernel's unit (its section
    attribute for `__shared__` variables), without NVRTC."""
    unit = tmp_path / "unit.cpp"
    unit.write_text('#define SHARED static __attribute__((section("gg_shared")))\n' + code)
    obj = tmp_path / "unit.o"
    subprocess.run(
        ["g++", *build_flags(False), "-c", str(unit), "-o", str(obj)], check=True, timeout=60
    )
    return object_listing(obj)


# NVRTC's view of the kernel below: terms, under a name of internal linkage (red team, round
# 18), which g++ does not give it
_NVRTC = NvrtcShared(frozenset({"_ZN27_INTERNAL_a5terms"}), (20,), 4, (4,))
_KERNEL = "float *k(int n) { SHARED float terms[5]; return terms + n; }\n"


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
    why = refusal(_listing(tmp_path, _KERNEL + code), _NVRTC, "kernel.cu")
    assert "a variable that g++ does not place in the block's shared memory" in why, why


def test_arrays_g_plus_plus_keeps_that_nvrtc_drops_are_refused(tmp_path: Path) -> None:
    # an unused function's array after terms: g++ keeps it, NVVM does not (red team, round 19)
    spare = "float *unused(int n) { SHARED float spare[4]; return spare + n; }\n"
    why = refusal(_listing(tmp_path, _KERNEL + spare), _NVRTC, "kernel.cu")
    assert "(at 0 (20 bytes), 32 (16 bytes) where a GPU has 0 (20 bytes))" in why, why


def test_a_gpu_lays_arrays_out_in_order_each_at_its_own_alignment() -> None:
    # an int, float[3], a double, a float4: ptxas's layout, as the SASS of round 16 showed
    assert gpu_layout((4, 12, 8, 16), (4, 4, 8, 16)) == ((0, 4), (4, 12), (16, 8), (32, 16))


@pytest.mark.parametrize(
    ("placed", "gpu", "same"),
    [
        (((0, 64), (64, 8)), ((0, 64), (64, 4), (68, 4)), True),  # NVVM split `int mine[2]`
        (((32, 20), (52, 12)), ((0, 20), (20, 12)), True),  # where the section puts them
        (((0, 20), (20, 16)), ((0, 20),), False),  # an array NVVM removed
        (((0, 20),), ((0, 20), (20, 16)), False),
        (((0, 4), (4, 4)), ((0, 8),), False),
        (((0, 16), (16, 20)), ((0, 20), (20, 16)), False),  # the same bytes, another order
        (((0, 4), (8, 12)), ((0, 4), (4, 12)), False),  # padding a GPU does not have
        (((0, 4), (16, 16)), ((0, 4), (16, 16)), True),  # padding a GPU has too
        ((), (), True),
    ],
)
def test_g_plus_plus_arrays_must_lie_where_a_gpu_s_lie(
    placed: tuple[tuple[int, int], ...], gpu: tuple[tuple[int, int], ...], same: bool
) -> None:
    assert same_layout(placed, gpu) is same


def test_the_arrays_nvrtc_declares_beside_device_variables_are_run(tmp_path: Path) -> None:
    # __device__ variables at namespace scope, with and without linkage, are no shared ones
    code = _KERNEL + "int launches;\nstatic int seen;\nint *use() { seen++; return &launches; }\n"
    listing = _listing(tmp_path, code)
    assert refusal(listing, _NVRTC, "kernel.cu") == ""
    # and a PTX declaration this module cannot size refuses it, never counts for nothing
    unread = refusal(listing, replace(_NVRTC, sizes=None), "kernel.cu")
    assert "a __shared__ declaration in NVRTC's PTX the CPU backend can't read" in unread

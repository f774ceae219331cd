"""NVRTC's `__shared__` variables read off its PTX: what the CPU build compares g++'s layout
with (grader/backends/cpu_shared_layout.py; the builds themselves: test_cpu_fast_build.py)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from grader.backends.cpu_shared_layout import NvrtcShared, nvrtc_shared, object_listing, refusal
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


def test_the_ptx_s_shared_variables_are_read_with_their_bytes_and_strictest_alignment() -> None:
    # what the CPU build compares g++'s shared memory with, and aligns every variable to
    shared = nvrtc_shared(_PTX)
    assert shared.size == 1 + 6 + 32 + 8 + 8 + 6
    assert shared.alignment == 16
    assert len(shared.names) == 6 and "dyn" not in shared.names
    assert nvrtc_shared("") == nvrtc_shared("\tst.shared.f32 \t[%r11], %f1;\n")
    assert (nvrtc_shared("").size, nvrtc_shared("").alignment) == (0, 0)


def test_a_shared_declaration_the_ptx_reader_cannot_size_gives_no_total() -> None:
    # a variable it cannot size must not count as 0 bytes: the build leaves the kernel to a GPU
    assert nvrtc_shared(_PTX + "\t.shared .align 4 .b8 odd[4], other[4];\n").size is None


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


_TWO_ARRAYS = """
float *f(int n) { SHARED float tiles[512]; return tiles + n; }
float *g(int n) { static float terms[5]; return terms + n; }
"""


def test_fewer_bytes_in_the_block_s_memory_than_nvrtc_declares_are_refused(
    tmp_path: Path,
) -> None:
    # NVRTC declares tiles and terms (2068 bytes) under names g++ does not give them (internal
    # linkage: red team, round 18); g++ placed terms outside gg_shared: 2048 of 2068 bytes
    listing = _listing(tmp_path, _TWO_ARRAYS)
    nvrtc = NvrtcShared(frozenset({"_ZN27_INTERNAL_a5tiles", "_ZN27_INTERNAL_a5terms"}), 2068, 4)
    why = refusal(listing, nvrtc, False, "kernel.cu")
    assert "(g++ placed 2048 of the 2068 bytes NVRTC declares)" in why, why
    # what g++ placed is what NVRTC declares (NVVM dropped terms): nothing to refuse
    assert refusal(listing, replace(nvrtc, size=2048), False, "kernel.cu") == ""
    # a declaration the PTX reader cannot size: refused, never taken for 0 bytes
    unread = refusal(listing, replace(nvrtc, size=None), False, "kernel.cu")
    assert "a __shared__ declaration in NVRTC's PTX the CPU backend cannot read" in unread

"""NVRTC's `__shared__` variables read off its PTX: what the CPU build compares g++'s layout
with (grader/backends/cpu_shared_layout.py; the builds themselves: test_cpu_fast_build.py)."""

from __future__ import annotations

from grader.backends.cpu_shared_layout import nvrtc_shared

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

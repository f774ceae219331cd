"""The fast build (-O2, no sanitizers) runs the large shapes, and every shape of a kernel with
`__device__` variables: what the checked build's sanitizers catch there, it must catch too, or
leave to a GPU (red team, round 13: files in tests/data/gpu_tells/round13/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import PAGE, SHARED_GAP_LIMIT, shared_gap, shared_pad_for
from tests.backends.sessions import graded_as_ex1
from tests.backends.test_cpu_gpu_only import assert_left_to_a_gpu
from tests.conftest import ROOT

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

ROUND_13 = ROOT / "tests/data/gpu_tells/round13"
ROUND_14 = ROOT / "tests/data/gpu_tells/round14"
ROUND_15 = ROOT / "tests/data/gpu_tells/round15"
ROUND_16 = ROOT / "tests/data/gpu_tells/round16"
ROUND_17 = ROOT / "tests/data/gpu_tells/round17"
ROUND_18 = ROOT / "tests/data/gpu_tells/round18"
ROUND_19 = ROOT / "tests/data/gpu_tells/round19"
ROUND_20 = ROOT / "tests/data/gpu_tells/round20"
ROUND_21 = ROOT / "tests/data/gpu_tells/round21"
ROUND_22 = ROOT / "tests/data/gpu_tells/round22"
OUTSIDE = "an access outside the block's shared memory"


@pytest.mark.parametrize(
    ("file", "said"),
    [
        # k <= TILE_SIZE reads b_tile[16][tx], past the last array: 0.0f in the fast build's
        # guard, so the sum came out right (100/100 with a __device__ counter; a GPU faults)
        (ROUND_13 / "offbyone_shared_device_counter.cu", OUTSIDE),
        # a row kept past the last array, read back: extra shared memory on the CPU only
        (ROUND_13 / "store_past_last_shared_array.cu", OUTSIDE),
        # round 13 filled the guards with NaN: a comparison dropped it (100/100, round 14)
        (ROUND_14 / "skip_tiny_offbyone_counter.cu", OUTSIDE),
        # and checked them at the launch's end: a store put back before it went unseen
        (ROUND_14 / "store_restore_guard_counter.cu", OUTSIDE),
        # one past a 20-byte array packed last: its end is the page's (round 16 left 12 bytes
        # of g++'s padding there, whose fill a comparison dropped: 100/100). A GPU reads 0 there,
        # inside the 128-byte unit it allocates in: stricter than a GPU, never more lenient
        (ROUND_16 / "slack_last_1d_offbyone_counter.cu", OUTSIDE),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_an_access_past_the_last_shared_array_fails_every_case_in_the_fast_build(
    small_course: Path, file: Path, said: str
) -> None:
    # the small course's shapes, in the fast build alone (the kernel has a __device__ counter)
    report = graded_as_ex1(small_course, file.read_text())
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert correctness and not report.needs_gpu
    assert all(c.status == "failed" for c in correctness), [c.status for c in correctness]
    assert said in correctness[0].message, correctness[0].message


def test_a_recursion_g_plus_plus_keeps_and_nvrtc_turns_into_a_loop_is_left_to_a_gpu(
    small_course: Path,
) -> None:
    # ptxas: no stack (NVVM made the tail call a loop); g++ -O1 kept it, K deep: a right kernel
    # overflowed the fibers at K = 1024 and failed (91/100)
    assert_left_to_a_gpu(
        small_course, ROUND_13 / "tailrec_frame_right_kernel.cu", "keeps a recursive call"
    )


@pytest.mark.parametrize(
    ("size", "alignment", "pad"),
    [(2048, 32, 2048), (4096, 16, 0), (0, 1, 0), (20, 16, 4064), (6000, 8, 2192)],
)
def test_the_pad_ends_the_shared_arrays_on_a_page_or_within_their_alignment_of_it(
    size: int, alignment: int, pad: int
) -> None:
    # the guard above them starts on the next page: there the fast build faults an access
    assert shared_pad_for(size, alignment) == pad
    assert pad % alignment == 0 and 0 <= (-(pad + size)) % PAGE < alignment


@pytest.mark.parametrize(
    ("file", "why"),
    [
        # both tiles in one __align__(4096) array: 2048 bytes after it that no page guards
        (ROUND_18 / "align4096_one_array_offbyone_counter.cu", "aligned to 4096 bytes"),
        # round 15's: the second array, aligned like the first (NVRTC's strictest), lies apart
        (ROUND_15 / "align4096_offbyone_counter.cu", "lays out otherwise than a GPU"),
        (ROUND_15 / "align4096_store_restore_counter.cu", "lays out otherwise than a GPU"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_shared_arrays_aligned_past_what_the_pad_can_place_are_left_to_a_gpu(
    small_course: Path, file: Path, why: str
) -> None:
    # an __align__(4096) array left 2048 bytes after the last one that no page guarded: round
    # 14's off-by-one, and its store put back, passed 100/100 there (round 15)
    assert shared_gap(2048, 4096) == 2048 > SHARED_GAP_LIMIT
    assert_left_to_a_gpu(small_course, file, why)


@pytest.mark.parametrize(
    "file",
    [
        ROUND_16 / "layout_gap_bias_offbyone_opaque.cu",
        ROUND_16 / "layout_gap_store_offbyone.cu",
    ],
    ids=lambda value: value.name,
)
def test_an_access_one_past_a_shared_array_reaches_the_next_one_as_on_a_gpu(
    small_course: Path, file: Path
) -> None:
    # `float bias[5]`: g++ put 12 bytes of padding (0xFF) after it, where a GPU has the next
    # array's first value: a read or a store one past bias passed 100/100 (round 16), then was
    # left to a GPU. Aligned as NVRTC aligns them (4), the arrays lie as on a GPU, and the
    # kernel gets the GPU's verdict: every case fails (10/100)
    report = graded_as_ex1(small_course, file.read_text())
    correctness = [c for c in report.checks if c.kind == "correctness"]
    assert correctness and not report.needs_gpu
    assert all(c.status == "failed" for c in correctness), [c.status for c in correctness]


def test_a_right_kernel_with_a_shared_scalar_before_its_tiles_passes(small_course: Path) -> None:
    # g++ aligned the tiles to 32, 28 bytes past the int, where a GPU packs them: round 16's
    # rule left this right kernel to a GPU (round 17); NVRTC's alignment packs them alike
    file = ROUND_18 / "scalar_before_tiles_right.cu"
    report = graded_as_ex1(small_course, file.read_text())
    assert report.passed and not report.needs_gpu, [(c.name, c.message) for c in report.checks]


def test_shared_variables_of_different_alignments_g_plus_plus_pads_apart_are_left_to_a_gpu(
    small_course: Path,
) -> None:
    # an int, float[3], then a double: every one aligned at 8 in the CPU build, 4 bytes after
    # the int where a GPU has scale[0] (NVRTC aligns them at 4, 4 and 8: 0, 4, 16)
    assert_left_to_a_gpu(
        small_course,
        ROUND_18 / "mixed_alignments_right.cu",
        "lays out otherwise than a GPU (steps at 0, scale at 8, total at 24, a_tile at 32",
    )


@pytest.mark.parametrize(
    "file",
    [
        # a wrong kernel (bias[5] read one past, a __device__ counter): 100/100, GPU 10/100
        ROUND_17 / "lambda_bias_offbyone_counter.cu",
        # a right kernel whose tiles live in a generic lambda: one copy for every block, failed
        ROUND_17 / "lambda_shared_probe.cu",
        # the lambda in a static function, or in an unnamed namespace: NVRTC names internal
        # linkage `_INTERNAL_<hash>`, g++ does not, and the names never matched (round 18):
        # wrong, 100/100 (GPU 10/100); right, failed 19/100
        ROUND_18 / "static_fn_lambda_pair.cu",
        ROUND_18 / "anon_ns_tiles_right.cu",
    ],
    ids=lambda value: value.name,
)
def test_a_shared_array_g_plus_plus_puts_outside_the_block_s_memory_is_left_to_a_gpu(
    small_course: Path, file: Path
) -> None:
    # a generic lambda is a template without `template <`: g++ drops the section of its static
    # and puts the array in .bss, where no guard, fill or copy per block reaches (round 17); the
    # source scan now finds it as it finds a template's (round 18; the build's own check of
    # where g++ put NVRTC's variables: test_cpu_shared_layout.py)
    assert_left_to_a_gpu(small_course, file, "declared in a template (or a lambda with an auto")


@pytest.mark.parametrize(
    ("file", "why"),
    [
        # an unused function's array, which g++ keeps and NVVM drops, between two used ones: a
        # read past the first reached it (0xFF, dropped by fmaxf) where a GPU reads the second
        # (100/100; GPU 10/100)
        (ROUND_19 / "dropped_between_fmax.cu", "lays out otherwise than a GPU"),
        # a generic lambda spelled with digraphs (`<::>(auto w)`), and a template head whose
        # `<` the scan could not close: their arrays in .bss, under names NVRTC gives otherwise,
        # an unused function's array making up the bytes (100/100 wrong; a right one 19/100)
        (ROUND_19 / "digraph_lambda_neg.cu", "that g++ does not place in the block's shared"),
        (ROUND_19 / "unbalanced_template_neg.cu", "that g++ does not place in the block's shared"),
        (ROUND_19 / "digraph_tiles_right.cu", "that g++ does not place in the block's shared"),
        # two arrays of one size that NVVM orders otherwise than g++: a read below one reached
        # the reserved KB (NaN, dropped by fmaxf) where a GPU reads the other (100/100 with both
        # builds, Gradescope too; GPU 10/100; round 20)
        (ROUND_20 / "swap_static_helper_nocounter.cu", "lays out otherwise than a GPU"),
        # an unnamed namespace's variable template: in .bss, under a name of internal linkage,
        # an unused function's array in its place (wrong 100/100, right 19/100; round 20); the
        # scan finds it now (the object's check: test_cpu_shared_layout.py)
        (ROUND_20 / "anon_vartemplate_counter.cu", "a __shared__ variable declared in a template"),
        (ROUND_20 / "anon_vartemplate_tiles_right.cu", "variable declared in a template"),
        # a second kernel reaching a helper's array: ptxas lays out each kernel apart, and put
        # matmul_tiled's own array first, where PTX and g++ had the helper's (100/100 with both
        # builds and on Gradescope, GPU 10/100; round 21)
        (ROUND_21 / "ptxas_order_twokernel.cu", "several kernels that reach __shared__ variables"),
        # one kernel, whose helper (called through a pointer, so kept a function) ptxas laid out
        # after the kernel's own array: 100/100 with both builds and on Gradescope, GPU 10/100
        (ROUND_22 / "indirect_call_local.cu", "in a function that NVRTC does not inline"),
        (ROUND_22 / "indirect_call_order.cu", "in a function that NVRTC does not inline"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_shared_arrays_g_plus_plus_keeps_unlike_nvrtc_are_left_to_a_gpu(
    small_course: Path, file: Path, why: str
) -> None:
    assert_left_to_a_gpu(small_course, file, why)


def test_a_right_kernel_with_arrays_of_one_name_in_two_scopes_passes(small_course: Path) -> None:
    # two `t` arrays, one per branch: not an array NVVM split in two (round 21 found it refused)
    file = ROUND_21 / "samename_scopes_right.cu"
    report = graded_as_ex1(small_course, file.read_text())
    assert report.passed and not report.needs_gpu, [(c.name, c.message) for c in report.checks]

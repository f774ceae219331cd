"""Turning a wrong output into words a student can act on: how many elements, which ones, and
what the pattern suggests. Also hints drawn across several cases (which shapes pass, which fail)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from grader.course import LaunchSpec, Shape
from grader.results import CheckResult

MAX_EXAMPLES = 5


@dataclass(frozen=True)
class Analysis:
    """An output compared with the reference, element by element."""

    result: npt.NDArray[np.float32]
    reference: npt.NDArray[np.float64]
    unwritten: npt.NDArray[np.bool_]
    nonfinite: npt.NDArray[np.bool_]
    wrong: npt.NDArray[np.bool_]
    """Finite, written, and outside the tolerance."""
    written_before: int
    written_after: int
    inputs_changed: bool
    worst_ratio: float

    @property
    def bad(self) -> npt.NDArray[np.bool_]:
        return self.unwritten | self.nonfinite | self.wrong

    @property
    def ok(self) -> bool:
        return (
            not self.bad.any()
            and self.written_before == 0
            and self.written_after == 0
            and not self.inputs_changed
        )


def _examples(analysis: Analysis) -> str:
    rows, cols = np.nonzero(analysis.bad)
    lines = []
    for r, c in zip(rows[:MAX_EXAMPLES], cols[:MAX_EXAMPLES], strict=True):
        got = "never written" if analysis.unwritten[r, c] else f"{analysis.result[r, c]:.6g}"
        lines.append(f"  ({r}, {c}): got {got}, expected {analysis.reference[r, c]:.6g}")
    return "\n".join(lines)


def _boundary_only(bad: npt.NDArray[np.bool_], shape: Shape, launch: LaunchSpec) -> str | None:
    """If every bad element lies in the last, partial block row or column, say which."""
    columns, rows = launch.tile
    # An edge counts only where there are full tiles before it: if the whole matrix is one
    # partial tile, "only the edge is wrong" would say nothing.
    row_edge = shape.m - shape.m % rows if shape.m % rows and shape.m > rows else None
    col_edge = shape.n - shape.n % columns if shape.n % columns and shape.n > columns else None
    if row_edge is None and col_edge is None:
        return None
    region = np.zeros_like(bad)
    where = []
    if row_edge is not None:
        region[row_edge:, :] = True
        where.append(f"rows {row_edge}..{shape.m - 1}")
    if col_edge is not None:
        region[:, col_edge:] = True
        where.append(f"columns {col_edge}..{shape.n - 1}")
    if bad[~region].any():
        return None
    return " and ".join(where)


def _span(mask: npt.NDArray[np.bool_]) -> str:
    rows = np.nonzero(mask.any(axis=1))[0]
    cols = np.nonzero(mask.any(axis=0))[0]
    return f"rows {rows.min()}..{rows.max()}, columns {cols.min()}..{cols.max()}"


UNINITIALISED_SHARED_BITS = 0xFFFFFFFF
"""The CPU backend's fill of shared memory (0xFF bytes); arithmetic on it keeps these bits."""


def _all_bits(analysis: Analysis, where: npt.NDArray[np.bool_], bits: int) -> bool:
    values = analysis.result.view(np.uint32)[where]
    return bool(values.size) and bool(np.all(values == np.uint32(bits)))


def describe_failure(
    analysis: Analysis,
    shape: Shape,
    launch: LaunchSpec,
    *,
    nondeterministic: bool,
    nan_from_inputs: bool = False,
    attempt: int = 0,
    of: int = 1,
) -> tuple[str, tuple[str, ...]]:
    """The message for a failed case and its symptoms (for cross-case hints)."""
    total = shape.m * shape.n
    bad = analysis.bad
    counts = [
        (int(analysis.wrong.sum()), "outside tolerance"),
        (int(analysis.nonfinite.sum()), "NaN/Inf"),
        (int(analysis.unwritten.sum()), "never written"),
    ]
    breakdown = ", ".join(f"{count} {what}" for count, what in counts if count)
    nbad = int(bad.sum())
    launches = f" (launch {attempt + 1} of {of})" if of > 1 else ""
    if nbad:
        headline = f"{nbad} of {total} elements wrong{launches}: {breakdown}"
    else:
        headline = f"all {total} elements of C are right{launches}, but:"
    lines = [headline]
    symptoms: list[str] = []

    if nondeterministic and nan_from_inputs:
        symptoms.append("varies_with_outside_reads")
        lines.append(
            "Two launches on the same inputs gave different results because the kernel reads "
            "outside A or B (see below), where the values are not the inputs'."
        )
    elif nondeterministic:
        symptoms.append("race")
        lines.append(
            "Two launches on the same inputs gave different results: threads race. Usually a "
            "missing __syncthreads() (one after staging a tile, one before overwriting it)."
        )
    outside = analysis.written_before + analysis.written_after
    if outside:
        symptoms.append("outside_write")
        lines.append(
            f"Wrote {outside} value(s) outside C ({analysis.written_before} before its start, "
            f"{analysis.written_after} after its end): a store without a bounds check "
            "(row < M && col < N)?"
        )
    if analysis.inputs_changed:
        symptoms.append("input_write")
        lines.append("Wrote into A or B (or next to them): the inputs must only be read.")

    unwritten = analysis.unwritten
    if unwritten.all():
        symptoms.append("unwritten")
        lines.append(
            "C was never written: is the result stored (C[row * N + col] = ...) and is the "
            "store's condition right?"
        )
    elif unwritten.any():
        symptoms.append("unwritten")
        geometry_text = (
            f"blocks of {launch.block[0]}x{launch.block[1]} threads, each covering "
            f"{launch.tile[0]} columns x {launch.tile[1]} rows of C"
        )
        lines.append(
            f"{int(unwritten.sum())} elements were never written ({_span(unwritten)}). The grader "
            f"launches {geometry_text}: every element must be written by some thread "
            "(launch geometry)."
        )

    nonfinite = analysis.nonfinite
    if nonfinite.any() and nan_from_inputs:
        symptoms.append("nan")
        lines.append(
            f"NaN/Inf in {_span(nonfinite)} come from reads outside A or B: the grader surrounds "
            "the inputs with NaN, and with zeros there instead the NaNs go away. A load without "
            "a bounds check?"
        )
    elif nonfinite.any() and _all_bits(analysis, nonfinite, UNINITIALISED_SHARED_BITS):
        symptoms.append("uninitialised_shared")
        lines.append(
            f"NaN/Inf in {_span(nonfinite)} come from __shared__ memory read before any thread "
            "of the block wrote it (the CPU backend fills shared memory with NaN before every "
            "block; a GPU leaves whatever was there). Does every thread store its element of the "
            "tile (0.0f where it lies outside A or B) before the __syncthreads() that precedes "
            "the reads?"
        )
    elif nonfinite.any() and nonfinite.sum() == total:
        symptoms.append("nan_everywhere")
        lines.append(
            "Every element is NaN: C is filled with NaN before the launch, so accumulating into "
            "C (C[...] += ...) instead of storing a sum kept in a register gives exactly this."
        )
    elif nonfinite.any():
        symptoms.append("nan")
        lines.append(
            f"NaN/Inf in {_span(nonfinite)}: from a value read before it was written "
            "(C is filled with NaN before the launch), or from the arithmetic itself."
        )

    wrong = analysis.wrong
    if wrong.any() and not nondeterministic:  # a race explains any pattern of wrong values
        written = ~unwritten
        boundary = _boundary_only(bad, shape, launch)
        if np.all(analysis.result[written] == 0.0) and written.any():
            symptoms.append("zeros")
            lines.append(
                "Every written element is 0: nothing was accumulated (is the loop over K entered?)."
            )
        elif boundary is not None:
            symptoms.append("boundary")
            lines.append(
                f"Only the last, partial tiles are wrong ({boundary}): boundary handling where M "
                "or N is not a multiple of the tile."
            )
        elif wrong.sum() >= 0.9 * total:
            symptoms.append("everywhere")
            lines.append(
                "Nearly every element is wrong: check the indexing. A is MxK (row stride K), "
                "B is KxN (row stride N), C is MxN (row stride N)."
            )
        else:
            symptoms.append("scattered")
            lines.append(f"Wrong values lie in {_span(wrong)}.")
    lines.append(_examples(analysis))
    return "\n".join(line for line in lines if line), tuple(symptoms)


_CLEAN_SYMPTOMS = frozenset({"everywhere", "scattered", "zeros", "boundary"})


def cross_case_hints(
    cases: Sequence[tuple[Shape, CheckResult]], tile_k: int | None, launch: LaunchSpec
) -> list[str]:
    """Hints from which shapes pass and which fail; each names the pattern it saw."""
    ran = [(shape, r) for shape, r in cases if r.status in ("passed", "failed")]
    passed = [shape for shape, r in ran if r.status == "passed"]
    failed = [(shape, r) for shape, r in ran if r.status == "failed"]
    if not passed or not failed:
        return []
    failed_shapes = [shape for shape, _ in failed]
    names = ", ".join(str(s) for s in passed)
    columns, rows = launch.tile
    # Shapes within one block's tile pass many wrong kernels: they say little about sizes.
    telling = [s for s in passed if s.m > rows or s.n > columns]
    if len(set(passed)) == 1 and telling and len(ran) >= 3:
        return [
            f"Correct only at {passed[0]}: are sizes hard-coded instead of taken from M, K and N?"
        ]
    # a square inside one block's tile fails for other reasons (bounds): it says nothing here
    big_squares_failed = any(
        s.m == s.k == s.n and (s.m > rows or s.n > columns) for s in failed_shapes
    )
    if all(s.m == s.k == s.n for s in passed) and len(set(passed)) > 1 and not big_squares_failed:
        return [
            f"Correct only for square shapes ({names}): somewhere M, K or N is used where another "
            "belongs (A's row stride is K; B's and C's is N; the loop runs over K)."
        ]
    clean = all(set(r.symptoms) <= _CLEAN_SYMPTOMS for _, r in failed)
    longest_passing = max(s.k for s in passed)
    if clean and all(s.k > longest_passing for s in failed_shapes):
        shapes = ", ".join(map(str, failed_shapes))
        return [
            f"Fails exactly when K is over {longest_passing} ({shapes}), the longest K that "
            "passes: the loop over K must cover all of K. Count its tiles from K, not from M, "
            "N or a fixed size such as 1024 / TILE_SIZE."
        ]
    if tile_k and clean:
        misses_k = {s for s in failed_shapes if s.k % tile_k}
        if misses_k == set(failed_shapes) and all(s.k % tile_k == 0 for s in passed):
            return [
                f"Fails exactly when K is not a multiple of {tile_k}: the last, partial tile "
                f"along K is dropped. Round the number of tiles up: (K + {tile_k} - 1) / {tile_k}."
            ]
    edges = {s for s in failed_shapes if s.m % rows or s.n % columns}
    if edges == set(failed_shapes) and all(s.m % rows == 0 and s.n % columns == 0 for s in passed):
        return [
            f"Fails exactly when M or N is not a multiple of the block's tile ({rows} rows x "
            f"{columns} columns): check the bounds on rows and columns."
        ]
    return []


def ignored_tile_size_hint(by_build: dict[str, list[CheckResult]]) -> str | None:
    """For a sweep: the hint when some builds (e.g. `TILE_SIZE=32`) pass every case and others
    fail, the mark of a tile size written into the code instead of taken from TILE_SIZE."""
    ran = {build: results for build, results in by_build.items() if build}
    passing = [b for b, rs in ran.items() if all(r.status == "passed" for r in rs)]
    failing = [b for b, rs in ran.items() if any(r.status == "failed" for r in rs)]
    if not passing or not failing:
        return None
    return (
        f"Passes with {', '.join(passing)} only, fails with {', '.join(failing)}: is a tile size "
        "written into the code (a 32, an array size, a loop bound) instead of TILE_SIZE? The "
        "grader builds the kernel once for each TILE_SIZE and launches blocks of that size."
    )

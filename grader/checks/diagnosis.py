"""Turning a wrong output into words a student can act on: how many elements, which ones, and
what the pattern suggests. Hints drawn across several cases are in `case_hints`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from grader.spec import LaunchSpec, Shape

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


C_POISON_BITS = 0x7F80BEEF
"""C's fill before every launch: a signalling NaN with a payload (see correctness.py)."""
C_POISON_READ_BITS = C_POISON_BITS | 0x00400000
"""C's poison after arithmetic on the CPU: x86 quietens a signalling NaN and keeps its payload.
A GPU returns its canonical NaN instead, which tells nothing: there a probe decides."""
UNINITIALISED_SHARED_BITS = 0xFFFFFFFF
"""The CPU backend's fill of shared memory (0xFF bytes): a quiet NaN that x86 arithmetic passes
on unchanged. No GPU arithmetic gives it (their canonical NaN is 0x7FFFFFFF)."""


@dataclass(frozen=True)
class NanEvidence:
    """Where the NaNs of a failed launch come from, as probe launches told (see correctness.py)."""

    from_inputs: bool = False
    """Fewer NaNs with zeros around A and B than with NaN there: reads outside the inputs."""
    outside_reads_vary: bool = False
    """The launches differed, and two launches with zeros around the inputs agree: what changed
    from launch to launch is what the kernel read outside A or B, not the threads' order."""
    from_c: bool = False
    """C is read before it is written (`C[...] += ...`): C's poison quietened by arithmetic, or
    fewer NaNs with zeros in C before the launch."""
    from_shared: bool = False
    """Every NaN has the CPU backend's shared-memory fill."""


def nan_pattern(analysis: Analysis) -> str | None:
    """`shared` or `c` when every NaN of C carries that source's bits, else None."""
    if _all_bits(analysis, analysis.nonfinite, UNINITIALISED_SHARED_BITS):
        return "shared"
    if _all_bits(analysis, analysis.nonfinite, C_POISON_READ_BITS):
        return "c"
    return None


def _all_bits(analysis: Analysis, where: npt.NDArray[np.bool_], bits: int) -> bool:
    values = analysis.result.view(np.uint32)[where]
    return bool(values.size) and bool(np.all(values == np.uint32(bits)))


def describe_failure(
    analysis: Analysis,
    shape: Shape,
    launch: LaunchSpec,
    *,
    nondeterministic: bool,
    nan: NanEvidence | None = None,
    attempt: int = 0,
    of: int = 1,
    probed: bool = True,
) -> tuple[str, tuple[str, ...]]:
    """The message for a failed case and its symptoms (for cross-case hints); without `probed`
    (no launch was made to tell a race, nor where NaNs come from) it says what the output shows."""
    nan = nan or NanEvidence()
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

    outside = analysis.written_before + analysis.written_after
    if nondeterministic and nan.outside_reads_vary:
        symptoms.append("varies_with_outside_reads")
        lines.append(
            "Two launches on the same inputs gave different results, from reads outside A or B, "
            "not from threads racing: with zeros all around the inputs (far past their ends), "
            "two launches agree bit for bit. What lies outside an input differs from launch to "
            "launch; bound every load (row < M && k < K for A, k < K && col < N for B) and "
            "stage 0.0f outside."
        )
    elif nondeterministic and outside:
        symptoms.append("race")
        lines.append(
            "Two launches on the same inputs gave different results: threads race. Here some "
            "stores miss C (below), and a store without a bounds check also lands inside C, on "
            "another thread's element (C[row * N + col] with col >= N is element (row + 1, "
            "col - N)): which thread writes it last varies. Else a missing __syncthreads()."
        )
    elif nondeterministic:
        symptoms.append("race")
        lines.append(
            "Two launches on the same inputs gave different results: threads race. Usually a "
            "missing __syncthreads() (one after staging a tile, one before overwriting it). On a "
            "GPU, reading a __shared__ element that no thread of the block stored (it holds "
            "whatever an earlier block left) does this too."
        )
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
    everywhere = int(nonfinite.sum()) == total
    where = ""
    if everywhere:
        where = "Every element is NaN"
    elif nonfinite.any():
        where = f"NaN/Inf in {_span(nonfinite)}"
    if nonfinite.any() and not probed:
        symptoms.append("nan_everywhere" if everywhere else "nan")
        lines.append(f"{where}.")
    elif nonfinite.any() and nan.from_inputs:
        symptoms.append("nan")
        lines.append(
            f"{where}: they come from reads outside A or B. The grader surrounds the inputs with "
            "NaN, and with zeros there instead the NaNs go away. A load without a bounds check "
            "(row < M && k < K for A, k < K && col < N for B; stage 0.0f outside)?"
        )
    elif nonfinite.any() and nan.from_shared:
        symptoms.append("uninitialised_shared")
        lines.append(
            f"{where}: they come from __shared__ memory read before any thread of the block "
            "wrote it (the CPU backend fills shared memory with NaN before every block; on a GPU "
            "it holds whatever an earlier block left). Does every thread store its element of "
            "the tile, 0.0f where it lies outside A or B, before the __syncthreads() that "
            "precedes the reads?"
        )
    elif nonfinite.any() and nan.from_c:
        symptoms.append("plus_equals")
        lines.append(
            f"{where}: C is read before it is written. The grader fills C with NaN before the "
            "launch, and with zeros there instead the NaNs go away: accumulating into C "
            "(C[...] += ...) gives exactly this. Keep the sum in a register "
            "(float acc = 0.0f; ... acc += ...) and store it once: C[row * N + col] = acc."
        )
    elif nonfinite.any() and everywhere:
        symptoms.append("nan_everywhere")
        lines.append(
            "Every element is NaN: from a value read before it was written (a __shared__ tile "
            "element no thread stored, or C, which is filled with NaN before the launch), or "
            "from the arithmetic itself (0 / 0, inf - inf)."
        )
    elif nonfinite.any():
        symptoms.append("nan")
        lines.append(
            f"NaN/Inf in {_span(nonfinite)}: from a value read before it was written (a "
            "__shared__ tile element no thread stored, or C, which is filled with NaN before the "
            "launch), or from the arithmetic itself."
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
    if not probed:
        lines.append(
            "Not launched again to tell why: an earlier check failed, and what it says is the "
            "place to start."
        )
    lines.append(_examples(analysis))
    return "\n".join(line for line in lines if line), tuple(symptoms)

"""The correctness check: run the kernel on fresh random inputs inside guarded buffers, then
compare every element with a float64 reference computed afterwards."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from grader.backends.base import Backend, GemmLaunch, GemmOutput, KernelRuntimeError
from grader.backends.geometry import launch_geometry
from grader.checks.diagnosis import (
    C_POISON_BITS,
    Analysis,
    NanEvidence,
    describe_failure,
    nan_pattern,
)
from grader.checks.planned_case import CorrectnessCase
from grader.checks.tolerance import error_bound, within_bound
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import ExerciseSpec, LaunchSpec, Shape

# C is filled with a *signalling* NaN with a payload before every launch. Copies keep its bits;
# any arithmetic on it yields a different pattern (the GPU returns its canonical NaN, x86 sets the
# quiet bit), so an element still holding exactly these bits was never written, and `C += x`
# shows up as NaN rather than as "never written".
POISON_BITS = np.uint32(C_POISON_BITS)
# C's guard regions hold another payload; any change there is a write outside C.
SENTINEL_BITS = np.uint32(0x7FC0C0DE)


def guard_length(shape: Shape) -> int:
    """Elements of guard on each side of a matrix: more than a few tiles' rows past any edge."""
    return 64 * max(shape) + 1024


def _bits(value: np.uint32, count: int) -> npt.NDArray[np.float32]:
    return np.full(count, value, dtype=np.uint32).view(np.float32)


def _guarded_input(
    matrix: npt.NDArray[np.float32], guard: int, fill: float = np.nan
) -> npt.NDArray[np.float32]:
    buffer = np.full(matrix.size + 2 * guard, fill, dtype=np.float32)
    buffer[guard : guard + matrix.size] = matrix.ravel()
    return buffer


def make_launch(
    a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], shape: Shape, launch: LaunchSpec
) -> GemmLaunch:
    guard = guard_length(shape)
    c = _bits(SENTINEL_BITS, shape.m * shape.n + 2 * guard)
    c[guard : guard + shape.m * shape.n] = _bits(POISON_BITS, shape.m * shape.n)
    return GemmLaunch(
        a=_guarded_input(a, guard),
        b=_guarded_input(b, guard),
        c=c,
        offset=guard,
        m=shape.m,
        k=shape.k,
        n=shape.n,
        geometry=launch_geometry(launch.block, launch.tile, shape.m, shape.n),
    )


def draw_inputs(
    spec: ExerciseSpec, shape: Shape, seed: int, case_index: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Inputs for one case: the same seed and case give the same matrices on every backend."""
    rng = np.random.default_rng([seed, case_index])
    low, high = spec.correctness.inputs.low, spec.correctness.inputs.high
    a = rng.uniform(low, high, size=(shape.m, shape.k)).astype(np.float32)
    b = rng.uniform(low, high, size=(shape.k, shape.n)).astype(np.float32)
    return a, b


def analyze(
    output: GemmOutput,
    launch: GemmLaunch,
    reference: npt.NDArray[np.float64],
    magnitude: npt.NDArray[np.float64],
    factor: float,
) -> Analysis:
    m, k, n, guard = launch.m, launch.k, launch.n, launch.offset
    c_bits = output.c.view(np.uint32)
    before = int(np.count_nonzero(c_bits[:guard] != SENTINEL_BITS))
    after = int(np.count_nonzero(c_bits[guard + m * n :] != SENTINEL_BITS))
    result = output.c[guard : guard + m * n].reshape(m, n)
    unwritten = c_bits[guard : guard + m * n].reshape(m, n) == POISON_BITS
    nonfinite = ~np.isfinite(result) & ~unwritten
    good = within_bound(result, reference, magnitude, k, factor)
    inputs_changed = not (
        np.array_equal(output.a.view(np.uint32), launch.a.view(np.uint32))
        and np.array_equal(output.b.view(np.uint32), launch.b.view(np.uint32))
    )
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(result.astype(np.float64) - reference)
        ratio = (
            float(np.max(error / error_bound(magnitude, k, factor))) if good.all() else float("inf")
        )
    return Analysis(
        result=result,
        reference=reference,
        unwritten=unwritten,
        nonfinite=nonfinite,
        wrong=~good & ~unwritten & ~nonfinite,
        written_before=before,
        written_after=after,
        inputs_changed=inputs_changed,
        worst_ratio=ratio,
    )


def _nonfinite(output: GemmOutput, launch: GemmLaunch) -> npt.NDArray[np.bool_]:
    """Elements of C that are NaN or Inf and not the poison (which means never written)."""
    span = slice(launch.offset, launch.offset + launch.m * launch.n)
    poison: npt.NDArray[np.bool_] = output.c.view(np.uint32)[span] == POISON_BITS
    return ~np.isfinite(output.c[span]) & ~poison


def _probe(backend: Backend, launch: GemmLaunch) -> GemmOutput | None:
    try:
        return backend.run_gemm(launch)
    except KernelRuntimeError:
        return None


def _with_zero_c(launch: GemmLaunch) -> GemmLaunch:
    c = launch.c.copy()
    c[launch.offset : launch.offset + launch.m * launch.n] = 0.0
    return replace(launch, c=c)


def wide_guard_length(launch: GemmLaunch) -> int:
    """A guard past any index a kernel builds from M, K, N and its tiles (`row * N + k` with a
    row beyond M, say): a read that misses the grader's guard lands in this one."""
    longest = max(launch.m, launch.k, launch.n)
    return max((longest + 64) * longest + 1024, launch.offset)


def _surrounded(
    launch: GemmLaunch, a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], fill: float
) -> GemmLaunch:
    """The launch again, with a wide guard of `fill` around A and B (C poisoned as before)."""
    guard = wide_guard_length(launch)
    size = launch.m * launch.n
    c = _bits(SENTINEL_BITS, size + 2 * guard)
    c[guard : guard + size] = _bits(POISON_BITS, size)
    return replace(
        launch,
        a=_guarded_input(a, guard, fill),
        b=_guarded_input(b, guard, fill),
        c=c,
        offset=guard,
    )


def _same(first: GemmOutput | None, second: GemmOutput | None) -> bool:
    return (
        first is not None
        and second is not None
        and np.array_equal(first.c.view(np.uint32), second.c.view(np.uint32))
    )


def nan_evidence(
    backend: Backend,
    launch: GemmLaunch,
    a: npt.NDArray[np.float32],
    b: npt.NDArray[np.float32],
    analysis: Analysis,
    differs: bool,
) -> NanEvidence:
    """Where the NaNs of a failed launch, or the difference between its launches, come from,
    told by launching again with one thing changed (made only where they can tell something):

    - zeros all around A and B (a guard wider than any index the kernel could build) instead of
      NaN: fewer NaNs mean reads outside the inputs. Where the launches differed, two such
      launches that agree bit for bit mean that what changed was what lay outside (past the
      grader's guard, memory differs from launch to launch), not the threads' order; without
      NaNs, a launch with NaN all around shows whether the kernel reads outside at all;
    - C's NaN pattern (the CPU backend): C's poison quietened by arithmetic means C was read
      (`C += ...`); the CPU's fill of shared memory means a `__shared__` element read unwritten;
    - else zeros in C instead of its poison: fewer NaNs mean C is read before it is written."""
    has_nan = bool(analysis.nonfinite.any())
    if not has_nan and not differs:
        return NanEvidence()
    zeros = _surrounded(launch, a, b, 0.0)
    first = _probe(backend, zeros)
    if first is None:
        return NanEvidence()
    nans = int(_nonfinite(first, zeros).sum())
    from_inputs = has_nan and nans < int(analysis.nonfinite.sum())
    reads_outside = from_inputs
    if differs and not has_nan:
        poisoned = _surrounded(launch, a, b, np.nan)
        probe = _probe(backend, poisoned)
        reads_outside = probe is not None and int(_nonfinite(probe, poisoned).sum()) > nans
    if differs and reads_outside:
        vary = _same(first, _probe(backend, zeros))
        return NanEvidence(from_inputs=from_inputs, outside_reads_vary=vary)
    if from_inputs or not has_nan:
        return NanEvidence(from_inputs=from_inputs)
    pattern = nan_pattern(analysis)
    if pattern == "shared":
        return NanEvidence(from_shared=True)
    if pattern == "c":
        return NanEvidence(from_c=True)
    probe = _probe(backend, _with_zero_c(launch))
    return NanEvidence(
        from_c=probe is not None and int(_nonfinite(probe, launch).sum()) < analysis.nonfinite.sum()
    )


def run_case(
    backend: Backend,
    spec: ExerciseSpec,
    planned: CorrectnessCase,
    seed: int,
    *,
    probe: bool = True,
) -> CheckResult:
    """Run one case (repeated as the spec says); KernelRuntimeError propagates to the caller.
    Where it fails, `probe` allows launches made only to tell why (a race, where NaNs come from):
    the first failure of a grading is the one to start from, and on the CPU backend each launch
    at the largest shapes costs seconds."""
    shape = planned.case.dims
    a, b = draw_inputs(spec, shape, seed, planned.index)
    launch = make_launch(a, b, shape, planned.launch or spec.launch)
    count = backend.launches(shape.m, shape.k, shape.n, planned.case.repeat)
    outputs = [backend.run_gemm(launch) for _ in range(count)]
    # The reference is computed only now, after the student's kernel has run, from host copies.
    reference, magnitude = backend.reference(a, b)
    factor = spec.correctness.tolerance.factor
    worst = 0.0
    for attempt, output in enumerate(outputs):
        analysis = analyze(output, launch, reference, magnitude, factor)
        if analysis.ok:
            worst = max(worst, analysis.worst_ratio)
            continue
        # Launches on the same inputs that differ bit for bit mean threads race; with a single
        # launch so far, make one more to compare.
        others = outputs if len(outputs) > 1 or not probe else [*outputs, backend.run_gemm(launch)]
        first = others[0].c.view(np.uint32)
        differs = any(not np.array_equal(first, x.c.view(np.uint32)) for x in others[1:])
        message, symptoms = describe_failure(
            analysis,
            shape,
            planned.launch or spec.launch,
            nondeterministic=differs,
            nan=nan_evidence(backend, launch, a, b, analysis, differs) if probe else None,
            attempt=attempt,
            of=len(outputs),
            probed=probe,
        )
        return CheckResult(
            planned.name,
            CheckKind.CORRECTNESS,
            CheckStatus.FAILED,
            0.0,
            planned.max_score,
            message,
            symptoms,
        )
    launches = f" in each of {len(outputs)} launches" if len(outputs) > 1 else ""
    return CheckResult(
        planned.name,
        CheckKind.CORRECTNESS,
        CheckStatus.PASSED,
        planned.max_score,
        planned.max_score,
        f"all {shape.m * shape.n} elements within tolerance{launches} "
        f"(largest error {worst:.2g} of the bound)",
    )

"""The correctness check's plan and its refusals: one result per case (per tile size in a
sweep), and a kernel the backend refuses to run is left to a GPU, neither wrong nor graded."""

from __future__ import annotations

from grader.backends.compiler import compile_kernel
from grader.checks.kinds.compile import COMPILED
from grader.checks.kinds.correctness import CorrectnessCheck, correctness_cases
from grader.spec import CaseSpec
from tests.checks.kinds.fakes import NoTimingBackend, context, sent, spec_of
from tests.checks.test_correctness import F32, Behaviour, NumpyDevice, correct
from tests.conftest import ROOT

EX1, EX2 = spec_of("ex1-non-square"), spec_of("ex2-tile-sweep")


def test_every_case_is_planned_once_per_build_with_the_points_split_evenly() -> None:
    plan = CorrectnessCheck().plan(EX2)
    cases, sizes = len(EX2.correctness.cases), EX2.sweep.values if EX2.sweep else []
    assert len(plan) == cases * len(sizes)
    assert plan[0].name == "correctness TILE_SIZE=8 odd 17x33x65"
    assert round(sum(p.max_score for p in plan)) == EX2.correctness.points
    assert {c.launch.block for c in correctness_cases(EX2) if c.launch} == {
        (8, 8),
        (16, 16),
        (32, 32),
    }


def test_a_kernel_the_backend_refuses_leaves_every_case_to_a_gpu_and_grading_goes_on() -> None:
    source = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
    backend = NoTimingBackend(refuse="kernel.cu:3: an asm statement")
    made, events = context(EX1, source, backend)
    made.evidence[COMPILED] = compile_kernel(
        made.source, EX1.kernel.name, EX1.kernel.defines, "sm_90"
    )
    outcome = CorrectnessCheck().run(made)
    assert outcome is None  # the checks after it (answers, ...) still run
    results = sent(events)
    assert [r.name for r in results] == [c.name for c in correctness_cases(EX1)]
    assert all(r.needs_a_gpu and r.score == 0 for r in results)
    assert all(r.message.endswith("\nkernel.cu:3: an asm statement") for r in results)


def _reads_before_a(shapes: list[tuple[int, int, int]]) -> Behaviour:
    """Computes C right except its first element, which it reads from before A: NaN there,
    from the grader's guard. Records the shape of every launch."""

    def behaviour(a: F32, b: F32, c: F32, o: int, m: int, k: int, n: int, launch: int) -> None:
        shapes.append((m, k, n))
        correct(a, b, c, o, m, k, n, launch)
        c[o] = a[o - 1]

    return behaviour


def test_only_the_first_failing_case_is_launched_again_to_tell_why() -> None:
    cases = [CaseSpec(shape="17x33x65"), CaseSpec(shape="31x8x9")]
    spec = EX1.model_copy(
        update={"correctness": EX1.correctness.model_copy(update={"cases": cases})}
    )
    source = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
    shapes: list[tuple[int, int, int]] = []
    made, events = context(spec, source, NumpyDevice(_reads_before_a(shapes)))
    made.evidence[COMPILED] = compile_kernel(made.source, EX1.kernel.name, EX1.kernel.defines)
    CorrectnessCheck().run(made)
    first, second = sent(events)
    assert first.status == second.status == "failed"
    # the first: launched, again for a race, then with zeros around the inputs
    assert shapes[:3] == [(17, 33, 65)] * 3
    assert "they come from reads outside A or B" in first.message
    # the second: launched once, and says what its output shows
    assert shapes[3:] == [(31, 8, 9)]
    assert "NaN/Inf in rows 0..0, columns 0..0." in second.message
    assert "Not launched again to tell why: an earlier check failed" in second.message

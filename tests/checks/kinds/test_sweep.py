"""The sweep check without a GPU: skipped, saying why, and the reason left for the answers check."""

from __future__ import annotations

from grader.checks.kinds.sweep import SweepCheck, SweepTimes
from tests.checks.kinds.fakes import NoTimingBackend, context, sent, spec_of

EX2 = spec_of("ex2-tile-sweep")


def test_the_sweep_without_a_gpu_is_skipped_and_tells_the_answers_why() -> None:
    made, events = context(EX2, backend=NoTimingBackend())
    SweepCheck().run(made)
    [result] = sent(events)
    assert (result.name, result.status) == ("sweep timing", "skipped")
    evidence = made.evidence["sweep"]
    assert isinstance(evidence, SweepTimes) and evidence.medians_ms is None
    assert evidence.why_none.startswith("needs a GPU: the grader measures the sweep there")


def test_a_sweep_with_a_failed_tile_size_is_not_timed_with_or_without_a_gpu() -> None:
    # 0 points, as on a GPU: not "(20 need a GPU)", which a wrong kernel would never get
    made, events = context(EX2, backend=NoTimingBackend(), any_failed=True)
    SweepCheck().run(made)
    [result] = sent(events)
    assert result.status == "skipped" and result.message.startswith("not timed: every tile size")
    assert not result.needs_a_gpu
    evidence = made.evidence["sweep"]
    assert isinstance(evidence, SweepTimes)
    assert evidence.why_none.startswith("not graded: the sweep is timed only once")

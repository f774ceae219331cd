"""The profile check without a GPU and ncu: skipped, saying why, and the reason left for the answers
check."""

from __future__ import annotations

from grader.checks.kinds.profile import ProfileCheck, ProfileFigures
from tests.checks.kinds.fakes import NoTimingBackend, context, sent, spec_of

EX3 = spec_of("ex3-profiling")


def test_the_profile_without_a_gpu_is_skipped_and_tells_the_answers_why() -> None:
    made, events = context(EX3, backend=NoTimingBackend())
    ProfileCheck().run(made)
    [result] = sent(events)
    assert (result.name, result.status, result.max_score) == ("ncu profile", "skipped", 0.0)
    evidence = made.evidence["profile"]
    assert isinstance(evidence, ProfileFigures) and evidence.figures is None
    assert evidence.why_none.startswith("needs a GPU and Nsight Compute (ncu)")

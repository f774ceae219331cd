"""The performance check where it cannot time: without a GPU, after a failure, or when an earlier
child already reported it."""

from __future__ import annotations

from grader.checks.kinds.performance import PerformanceCheck
from tests.checks.kinds.fakes import NoTimingBackend, context, sent, spec_of

EX4 = spec_of("ex4-register-tiling")


def test_performance_without_a_gpu_is_skipped_saying_where_it_is_timed() -> None:
    made, events = context(EX4, backend=NoTimingBackend())
    assert PerformanceCheck().run(made) is None
    [result] = sent(events)
    assert (result.name, result.status, result.score) == ("performance", "skipped", 0.0)
    assert result.message.startswith("needs a GPU: the CPU backend grades correctness only")


def test_performance_after_a_failure_is_not_timed() -> None:
    backend = NoTimingBackend(times_kernels=True)
    made, events = context(EX4, backend=backend, any_failed=True)
    PerformanceCheck().run(made)
    [result] = sent(events)
    assert result.message == "not timed: the kernel must pass every correctness check first"


def test_a_check_an_earlier_child_reported_is_not_run_again() -> None:
    made, events = context(EX4, backend=NoTimingBackend(), done=("performance",))
    assert PerformanceCheck().run(made) is None and sent(events) == []

"""What a check runs with: results go to the parent unless an earlier child sent them, limits
are announced before the work they cover, and a failure anywhere stops the timing."""

from __future__ import annotations

from dataclasses import replace

from grader.checks.base import STOPPED_AT_REASON, Context, Halt
from grader.events import Event, ResultEvent, StartEvent
from grader.expectations import Expectation
from grader.job import Job
from grader.results import CheckKind, CheckResult, CheckStatus, DeviceInfo
from grader.source import KernelSource
from grader.spec import load_spec
from tests.conftest import ROOT

SPEC = load_spec(ROOT / "exercises/ex4-register-tiling/spec.yaml")


def _context(
    events: list[Event],
    done: tuple[str, ...] = (),
    any_failed: bool = False,
    stop_at: tuple[Expectation, ...] = (),
    reason_found: bool = False,
) -> Context:
    job = Job(spec={}, source_text="", display_name="k.cu", seed=1, done=done,
              any_failed=any_failed, stop_at=stop_at, reason_found=reason_found)  # fmt: skip
    return Context(job, SPEC, KernelSource("", "k.cu"), None, DeviceInfo("cpu", "x"), events.append)


def _result(name: str, status: CheckStatus, message: str = "") -> CheckResult:
    return CheckResult(name, CheckKind.CORRECTNESS, status, 0.0, 1.0, message)


def test_a_result_an_earlier_child_sent_is_kept_but_not_sent_again() -> None:
    events: list[Event] = []
    context = _context(events, done=("a",))
    context.report(_result("a", CheckStatus.PASSED))
    context.report(_result("b", CheckStatus.PASSED))
    assert [r.name for r in context.reported] == ["a", "b"]
    assert [e.result.name for e in events if isinstance(e, ResultEvent)] == ["b"]


def test_start_announces_the_time_the_next_step_adds_to_the_limit() -> None:
    events: list[Event] = []
    _context(events).start("build", 600.0)
    assert events == [StartEvent(check="build", extra_s=600.0)]


def test_any_failure_here_or_in_an_earlier_child_counts() -> None:
    clean = _context([])
    clean.report(_result("a", CheckStatus.PASSED))
    clean.report(_result("b", CheckStatus.SKIPPED))
    assert not clean.any_failed
    errored = _context([])
    errored.report(_result("a", CheckStatus.ERROR))
    assert errored.any_failed
    assert _context([], any_failed=True).any_failed


def test_validate_stops_at_the_first_failure_that_bears_out_the_declared_reason() -> None:
    sought = (Expectation("correctness", "Outside A or B"),)
    context = _context([], stop_at=sought)
    context.report(_result("a", CheckStatus.FAILED, "1551 elements never written"))
    assert context.stopping is None  # a failure, but not the one declared
    context.report(_result("b", CheckStatus.PASSED, "reads outside A or B"))  # passed: not it
    assert context.stopping is None
    context.report(_result("c", CheckStatus.FAILED, "they come from reads outside A or B"))
    assert context.stopping == Halt(STOPPED_AT_REASON)
    # found by an earlier child of the same grading (the parent says so)
    assert _context([], stop_at=sought, reason_found=True).stopping == Halt(STOPPED_AT_REASON)
    # a compile failure with the text is not the correctness failure declared
    other = _context([], stop_at=sought)
    other.report(
        replace(_result("d", CheckStatus.FAILED, "outside A or B"), kind=CheckKind.COMPILE)
    )
    assert other.stopping is None

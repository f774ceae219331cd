"""What a check runs with: results go to the parent unless an earlier child sent them, limits
are announced before the work they cover, and a failure anywhere stops the timing."""

from __future__ import annotations

from grader.checks.base import Context
from grader.events import Event, ResultEvent, StartEvent
from grader.job import Job
from grader.results import CheckKind, CheckResult, CheckStatus, DeviceInfo
from grader.source import KernelSource
from grader.spec import load_spec
from tests.conftest import ROOT

SPEC = load_spec(ROOT / "exercises/ex4-register-tiling/spec.yaml")


def _context(events: list[Event], done: tuple[str, ...] = (), any_failed: bool = False) -> Context:
    job = Job(spec={}, source_text="", display_name="k.cu", seed=1, done=done,
              any_failed=any_failed)  # fmt: skip
    return Context(job, SPEC, KernelSource("", "k.cu"), None, DeviceInfo("cpu", "x"), events.append)


def _result(name: str, status: CheckStatus) -> CheckResult:
    return CheckResult(name, CheckKind.CORRECTNESS, status, 0.0, 1.0, "")


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

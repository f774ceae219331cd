"""The runner knows no check by name: it runs what the registry gives, in order, skips what
needs a device where there is none, and stops where a check says nothing after it can run."""

from __future__ import annotations

import pytest

from grader import runner
from grader.checks.base import Check, Context, Exit, Halt, Outcome, PlannedCheck
from grader.errors import GraderError
from grader.events import DeviceEvent, Event, ResultEvent
from grader.job import Job
from grader.results import HOST_FAILED, CheckKind, CheckResult, CheckStatus, DeviceInfo
from grader.source import KernelSource
from grader.spec import load_spec
from tests.conftest import ROOT

SPEC = load_spec(ROOT / "exercises/ex1-non-square/spec.yaml")


class _Step(Check):
    """A check that reports its one result, then returns what it was given."""

    def __init__(self, key: str, outcome: Outcome = None, device: bool = False) -> None:
        self.name = key
        self.key = key  # type: ignore[misc]  # per instance, for these tests
        self.outcome = outcome
        self.uses_device = device  # type: ignore[misc]  # per instance, for these tests

    def plan(self, spec: object) -> list[PlannedCheck]:  # type: ignore[override]
        return [PlannedCheck(self.name, CheckKind.CORRECTNESS, 1.0)]

    def run(self, context: Context) -> Outcome:
        context.report(
            CheckResult(self.name, CheckKind.CORRECTNESS, CheckStatus.PASSED, 1.0, 1.0, "ran")
        )
        return self.outcome


def _run(
    monkeypatch: pytest.MonkeyPatch, steps: list[_Step], backend_missing: bool = False
) -> tuple[int, list[Event]]:
    monkeypatch.setattr(runner, "checks_for", lambda spec: steps)
    monkeypatch.setattr(runner, "plan", lambda spec: [p for s in steps for p in s.plan(spec)])
    events: list[Event] = []
    job = Job(spec={}, source_text="", display_name="k.cu", seed=1)
    device = (
        DeviceInfo("none", "no device", "no GPU here")
        if backend_missing
        else DeviceInfo("cpu", "fake")
    )
    backend = None if backend_missing else object()
    context = Context(job, SPEC, KernelSource("", "k.cu"), backend, device, events.append)  # type: ignore[arg-type]
    return runner.run_checks(context), events


def _results(events: list[Event]) -> list[tuple[str, str, str]]:
    return [
        (e.result.name, str(e.result.status), e.result.message)
        for e in events
        if isinstance(e, ResultEvent)
    ]


def test_every_check_runs_in_order_after_the_device_is_announced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, events = _run(monkeypatch, [_Step("a"), _Step("b"), _Step("c")])
    assert code == 0 and isinstance(events[0], DeviceEvent)
    assert [name for name, _, _ in _results(events)] == ["a", "b", "c"]


def test_a_halt_skips_every_later_check_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    code, events = _run(
        monkeypatch, [_Step("a", Halt("not run: the kernel does not compile")), _Step("b")]
    )
    assert code == 0
    assert _results(events) == [
        ("a", "passed", "ran"),
        ("b", "skipped", "not run: the kernel does not compile"),
    ]


def test_an_exit_leaves_the_rest_to_a_fresh_child(monkeypatch: pytest.MonkeyPatch) -> None:
    code, events = _run(monkeypatch, [_Step("a", Exit()), _Step("b")])
    assert code == 3 and [name for name, _, _ in _results(events)] == ["a"]


def test_without_a_device_the_checks_that_need_one_are_skipped_saying_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, events = _run(
        monkeypatch,
        [_Step("compile"), _Step("cases", device=True), _Step("more", device=True)],
        backend_missing=True,
    )
    assert code == 0
    assert _results(events) == [
        ("compile", "passed", "ran"),
        ("cases", "skipped", "not run: no GPU here"),
        ("more", "skipped", "not run: no GPU here"),
    ]


class _HostFails(_Step):
    """A check whose backend finds, mid-run, that the host cannot isolate native code."""

    def run(self, context: Context) -> Outcome:
        raise GraderError("no isolation for students' native code here: bubblewrap is gone")


def test_a_host_failure_inside_a_check_is_an_error_for_it_and_the_rest_not_a_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # it once became "needs a GPU" (skipped, no points lost): a stub then PASSED on the CPU
    _, events = _run(monkeypatch, [_Step("a"), _HostFails("b"), _Step("c")])
    why = "not run: no isolation for students' native code here: bubblewrap is gone"
    assert _results(events) == [("a", "passed", "ran"), ("b", "error", why), ("c", "error", why)]
    # marked as the host's failure: the grading then gives no verdict (grading._report)
    marked = [e.result.name for e in events if isinstance(e, ResultEvent) and e.result.symptoms]
    assert marked == ["b", "c"]
    assert all(
        e.result.symptoms == (HOST_FAILED,)
        for e in events
        if isinstance(e, ResultEvent) and e.result.name in marked
    )

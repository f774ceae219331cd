"""A batch on GPU lanes starts each lane's correctness parts first and its timed parts once they
have all started (grader/batch/grade_all.py's _Run), each lane on its own: no timer waits behind
a queue of correctness runs, nor for the slowest of them to end (the lane's lock takes turns)."""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from grader.batch.grade_all import _Run
from grader.grading import Deferred
from grader.results import DeviceInfo, Report


class _Store:
    def __init__(self) -> None:
        self.recorded: list[str] = []

    def record(self, run_id: str, student: str, *args: Any) -> None:
        self.recorded.append(student)


class _Console:
    def not_graded(self, student: str, exercise: str, exc: BaseException) -> None:
        raise AssertionError(f"{student}: {exc}")


class _Timed(Deferred):
    """A grading stopped before its timed check; finishing it logs when it ran."""

    def __init__(self, name: str, log: list[str], then: threading.Event | None = None) -> None:
        self.name, self.log, self.then = name, log, then

    def finish(self) -> Report:
        self.log.append(f"timed {self.name}")
        if self.then is not None:
            self.then.set()
        return Report("ex4", "T", "k.cu", 1, DeviceInfo("gpu", "fake"), [])


class _Work:
    def __init__(self, student: str) -> None:
        self.student = student
        self.exercise = type("E", (), {"id": "ex4"})()
        self.submitted_at = None
        self.time_source = "files"


def test_a_lane_times_once_its_correctness_parts_have_all_started_not_ended() -> None:
    log: list[str] = []
    lane1_timed = threading.Event()

    def first(name: str, wait_for: threading.Event | None = None) -> Deferred:
        log.append(f"start {name}")
        if wait_for is not None:  # lane 0's slow correctness run ends once lane 1 has timed
            log.append(f"waits {name}: {'timed' if wait_for.wait(10) else 'held back'}")
        log.append(f"first {name}")
        return _Timed(name, log, lane1_timed if name == "d" else None)

    store = _Store()
    with ThreadPoolExecutor(2) as pool:  # "a" holds one thread: b, c, d run one by one
        run = _Run(pool, store, "run", _Console())  # type: ignore[arg-type]
        plan = [("a", 0, lane1_timed), ("b", 0, None), ("c", 0, None), ("d", 1, None)]
        for name, lane, waiting in plan:
            work: Any = (_Work(name), "digest")
            run.add(work, lane, lambda n=name, w=waiting: first(n, w))
        ended = 0
        while run.pending:
            finished, run.pending = wait(run.pending, timeout=20, return_when=FIRST_COMPLETED)
            assert finished, f"stuck: {log}"
            ended += sum(run.took(f) for f in finished)
    assert ended == 4 and sorted(store.recorded) == ["a", "b", "c", "d"]
    assert "waits a: timed" in log, log  # neither lane waited for lane 0's slow run to end
    assert log.index("timed b") < log.index("first a"), log
    # a lane times only once none of its correctness parts is left to start
    assert log.index("start c") < min(log.index("timed b"), log.index("timed c")), log
    for name in "abcd":
        assert log.index(f"first {name}") < log.index(f"timed {name}"), log

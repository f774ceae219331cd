"""A batch on GPU lanes runs each lane's correctness parts first and its timed parts after them
(grader/batch/grade_all.py's _Run), each lane on its own: no timer waits behind a correctness
run, and one lane's slow correctness run never holds another lane's timing back."""

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


def test_each_lane_times_only_after_its_own_correctness_parts() -> None:
    log: list[str] = []
    lane1_timed = threading.Event()

    def first(name: str, lane: int, wait_for: threading.Event | None = None) -> Deferred:
        if wait_for is not None:  # lane 0's last correctness run ends once lane 1 has timed
            log.append(f"waits {name}: {'timed' if wait_for.wait(10) else 'held back'}")
        log.append(f"first {name}")
        return _Timed(name, log, lane1_timed if lane == 1 else None)

    store = _Store()
    with ThreadPoolExecutor(4) as pool:
        run = _Run(pool, store, "run", _Console())  # type: ignore[arg-type]
        plan = [("a", 0, lane1_timed), ("b", 0, None), ("c", 1, None), ("d", 1, None)]
        for name, lane, waiting in plan:
            work: Any = (_Work(name), "digest")
            run.add(work, lane, lambda n=name, at=lane, w=waiting: first(n, at, w))
        ended = 0
        while run.pending:
            finished, run.pending = wait(run.pending, timeout=20, return_when=FIRST_COMPLETED)
            assert finished, f"stuck: {log}"
            ended += sum(run.took(f) for f in finished)
    assert ended == 4 and sorted(store.recorded) == ["a", "b", "c", "d"]
    assert "waits a: timed" in log  # lane 1 timed while lane 0 still ran a correctness part
    for lane_names in (("a", "b"), ("c", "d")):
        firsts = [log.index(f"first {n}") for n in lane_names]
        timed = [log.index(f"timed {n}") for n in lane_names]
        assert max(firsts) < min(timed), log

"""A GPU lane's lock, simulated on the CPU: processes that time on one lane never overlap, and
the lane's log shows it."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from grader import lane_lock
from grader.batch.lanes import child_env, overlaps
from grader.lane_lock import LANE_ENV, holding
from tests.conftest import ROOT

TIMER = """
import sys, time
from grader.lane_lock import holding
with holding(sys.argv[1], "kernel"):
    time.sleep(0.2)
"""


def _contend(out: Path, kind: str, processes: int = 4) -> Path:
    env = {**os.environ, **child_env(out, "0"), "PYTHONPATH": str(ROOT)}
    running = [
        subprocess.Popen([sys.executable, "-c", TIMER, kind], env=env) for _ in range(processes)
    ]
    assert all(p.wait(timeout=60) == 0 for p in running)
    return out / "lanes/gpu0/timing.log"


@pytest.mark.slow
def test_timed_sections_on_one_lane_never_overlap(tmp_path: Path) -> None:
    log = _contend(tmp_path, "exclusive")
    assert len(log.read_text().splitlines()) == 8  # 4 starts, 4 ends
    assert overlaps(log) == []


def _waiting_on(path: Path) -> int:
    """Locks requested on `path` and not yet granted (/proc/locks lists them with '->')."""
    inode = f":{path.stat().st_ino} "
    return sum(
        "->" in line and inode in line for line in Path("/proc/locks").read_text().splitlines()
    )


def test_a_timer_that_waited_long_goes_before_correctness_runs_that_come_after_it(
    tmp_path: Path,
) -> None:
    lane = child_env(tmp_path, "0")
    order: list[str] = []
    first_in, release_first = threading.Event(), threading.Event()

    def run(kind: str, name: str, hold: threading.Event | None = None) -> None:
        with holding(kind, name):
            order.append(name)
            if hold is not None:
                first_in.set()
                hold.wait(30)

    with pytest.MonkeyPatch.context() as patch:
        for key, value in lane.items():
            patch.setenv(key, value)
        lanes = Path(lane[LANE_ENV])
        first = threading.Thread(target=run, args=("shared", "correctness 1", release_first))
        first.start()
        assert first_in.wait(30)
        patch.setattr(lane_lock, "QUEUE_S", 0.0)  # it has waited long
        patch.setattr(lane_lock, "GATE_HOLD_S", 60.0)  # as long as the test takes
        timer = threading.Thread(target=run, args=("exclusive", "timing"))
        timer.start()
        _until(lambda: _held(lanes / "gate"))  # the timer waits for the lane, the gate closed
        later = threading.Thread(target=run, args=("shared", "correctness 2"))
        later.start()
        _until(lambda: _waiting_on(lanes / "gate") == 1)  # the later run waits at the gate
        release_first.set()
        for thread in (first, timer, later):
            thread.join(30)
    assert order == ["correctness 1", "timing", "correctness 2"]


def test_a_holder_that_stays_long_lets_correctness_runs_in_while_a_timer_waits(
    tmp_path: Path,
) -> None:
    lane = child_env(tmp_path, "0")
    order: list[str] = []
    hang_in, release_hang = threading.Event(), threading.Event()

    def run(kind: str, name: str, hold: threading.Event | None = None) -> None:
        with holding(kind, name):
            order.append(name)
            if hold is not None:
                hang_in.set()
                hold.wait(30)

    with pytest.MonkeyPatch.context() as patch:
        for key, value in lane.items():
            patch.setenv(key, value)
        patch.setattr(lane_lock, "QUEUE_S", 0.0)
        patch.setattr(lane_lock, "GATE_HOLD_S", 0.1)
        patch.setattr(lane_lock, "GATE_OPEN_S", 0.1)
        hang = threading.Thread(target=run, args=("shared", "hanging kernel", release_hang))
        hang.start()
        assert hang_in.wait(30)
        timer = threading.Thread(target=run, args=("exclusive", "timing"))
        timer.start()
        later = threading.Thread(target=run, args=("shared", "correctness"))
        later.start()
        later.join(30)  # gets in while the kernel still hangs and the timer waits
        assert order == ["hanging kernel", "correctness"]
        release_hang.set()
        for thread in (hang, timer):
            thread.join(30)
    assert order == ["hanging kernel", "correctness", "timing"]


def _held(path: Path) -> bool:
    """Whether someone holds `path` exclusively (a shared request would wait)."""
    with path.open("a") as probe:
        try:
            fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(probe, fcntl.LOCK_UN)
        return False


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the lock never reached the expected state"
        time.sleep(0.01)

"""A GPU lane's lock, simulated on the CPU: processes that time on one lane never overlap, and
the lane's log shows it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.batch.lanes import child_env, overlaps
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

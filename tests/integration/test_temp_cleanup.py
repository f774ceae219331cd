"""Nothing is left in the temporary area after a grading, however it ends: its grading child
killed at a random moment (as a time limit kills it), or the grader itself killed (whatever it
left, the next grader removes). Each run grades ex1's solution on the CPU backend with TMPDIR set
to a folder of the test's own, and counts what is left there. The course is the small copy
(tests/conftest.py), so a grading takes a couple of seconds and the random moments fall within
it: while the child starts, compiles, builds and launches."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.processes import grading_children

# integration: gradings killed at random moments
pytestmark = [
    pytest.mark.skipif(
        subprocess.run(["which", "g++"], capture_output=True).returncode != 0, reason="needs g++"
    ),
    pytest.mark.slow,
]

KERNEL = ROOT / "solutions/ex1-non-square/kernel.cu"


def _start(area: Path, course: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(area)}
    env.setdefault("GRADER_CACHE_DIR", str(ROOT / ".grader-cache"))
    command = [sys.executable, "-m", "grader", "--course", str(course), "check", "ex1"]
    command += ["--backend", "cpu"]
    return subprocess.Popen(
        [*command, "--file", str(KERNEL), "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder the sandbox's user can reach (pytest's own are root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="grader-test-area-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _left(area: Path) -> list[str]:
    return sorted(p.name for p in area.iterdir())


def _child_started(grader: subprocess.Popen[str]) -> None:
    """Once `grader` has started a grading child (or ended), within a minute."""
    deadline = time.monotonic() + 60
    while not grading_children(grader.pid) and grader.poll() is None:
        assert time.monotonic() < deadline, "no grading child started within a minute"
        time.sleep(0.01)


def test_a_grading_child_killed_at_random_moments_leaves_nothing(
    tmp_path: Path, small_course: Path
) -> None:
    pick = random.Random(os.environ.get("GRADER_TEST_SEED", "15"))
    delays, kills = [], 0
    for attempt in range(4):
        area = tmp_path / f"area-{attempt}"
        area.mkdir()
        grader = _start(area, small_course)
        _child_started(grader)  # the grader's own start-up, slow on a loaded machine, is not it
        delays.append(pick.uniform(0.0, 1.2))
        time.sleep(delays[-1])  # the random moment in the child's life is what is tested
        children = grading_children(grader.pid)
        for child in children:
            os.kill(child, signal.SIGKILL)
        kills += bool(children)
        grader.communicate(timeout=600)
        assert _left(area) == [], f"killed after {delays[-1]:.2f} s: {_left(area)}"
    # a grading that ended before its moment tested nothing: at least one must have been killed
    assert kills, f"no grading child was running {delays} s after the first one started"


def test_what_a_killed_grader_leaves_the_next_one_removes(
    tmp_path: Path, small_course: Path
) -> None:
    pick = random.Random(os.environ.get("GRADER_TEST_SEED", "15"))
    area = tmp_path / "area"
    area.mkdir()
    delays = []
    for _ in range(2):
        grader = _start(area, small_course)
        delays.append(pick.uniform(0.3, 1.2))
        time.sleep(delays[-1])
        for child in grading_children(grader.pid):
            os.killpg(child, signal.SIGKILL)  # the grader and its child: nothing cleans up
        grader.kill()
        grader.communicate(timeout=60)
    last = _start(area, small_course)
    out, err = last.communicate(timeout=600)
    assert last.returncode == 0, out[-3000:] + err[-2000:]
    assert _left(area) == [], f"killed after {delays}: {_left(area)}"

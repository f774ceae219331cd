"""GPU lanes, simulated on the CPU: the overlap check can fail, a batch spreads its gradings over
the lanes it is given, waiting for a busy lane is not counted, drift is reported (the lock that
keeps timings apart: tests/test_lane_lock.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.batch.lanes import overlaps
from tests.conftest import ROOT, run_grader


def test_the_overlap_check_can_fail(tmp_path: Path) -> None:
    log = tmp_path / "timing.log"
    log.write_text("1.0 11 start a\n1.1 12 start b\n1.2 11 end a\n1.3 12 end b\n")
    assert overlaps(log) == ["12 started at 1.1 while ['11'] timed"]


@pytest.mark.slow
def test_a_batch_spreads_over_the_lanes_it_is_given(small_course: Path, tmp_path: Path) -> None:
    submissions = tmp_path / "submissions"
    for student in ("a", "b", "c"):
        (submissions / student).mkdir(parents=True)
        (submissions / student / "kernel.cu").write_bytes(
            (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_bytes()
        )
    out = tmp_path / "out"
    done = run_grader(
        [
            "--course",
            str(small_course),
            "batch",
            str(submissions),
            "--out",
            str(out),
            "--exercise",
            "ex4",
            "--backend",
            "cpu",
            "--gpus",
            "0,1",
            "--seed",
            "1",
        ]
    )
    assert done.returncode == 0, done.stderr
    assert (out / "lanes/gpu0").is_dir() and (out / "lanes/gpu1").is_dir()
    assert (out / "gradebook.csv").read_text().splitlines()[1:] == [
        "a,80,80,ex4: 20 need a GPU",
        "b,80,80,ex4: 20 need a GPU",
        "c,80,80,ex4: 20 need a GPU",
    ]
    bad = run_grader(["batch", str(submissions), "--out", str(tmp_path / "o2"), "--gpus", "0,0"])
    assert bad.returncode == 2 and "--gpus expects distinct GPU numbers" in bad.stderr


@pytest.mark.slow
def test_waiting_for_a_busy_lane_does_not_count_against_the_time_limit(
    small_course: Path, tmp_path: Path
) -> None:
    """Another grading times on the lane for longer than a check's limit (5 s): the waiting
    grading must not be failed for a timeout it did not cause."""
    import fcntl

    submissions = tmp_path / "submissions"
    (submissions / "a").mkdir(parents=True)
    (submissions / "a" / "kernel.cu").write_bytes(
        (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_bytes()
    )
    out = tmp_path / "out"
    lock_path = out / "lanes/gpu0/lock"
    lock_path.parent.mkdir(parents=True)
    args = ["--course", str(small_course), "batch", str(submissions), "--out", str(out)]
    args += ["--exercise", "ex4"]
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        batch = subprocess.Popen(
            [sys.executable, "-m", "grader", *args, "--backend", "cpu", "--gpus", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            batch.wait(timeout=8)  # the lane is held: the grading waits, it does not time out
            raise AssertionError(f"the batch finished while its lane was held: {batch.stderr}")
        except subprocess.TimeoutExpired:
            pass
        fcntl.flock(lock, fcntl.LOCK_UN)
    _, stderr = batch.communicate(timeout=300)
    assert batch.returncode == 0, stderr
    assert (out / "gradebook.csv").read_text().splitlines()[1:] == ["a,80,80,ex4: 20 need a GPU"]


def test_the_baseline_is_logged_per_lane_and_drift_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grader.batch.lanes import baseline_drift
    from grader.lane_lock import record_baseline

    record_baseline("matmul_tiled at 2048x2048x2048", 2.0)  # outside a lane: nothing written
    lane = tmp_path / "lanes/gpu0"
    lane.mkdir(parents=True)
    monkeypatch.setenv("GRADER_LANE_DIR", str(lane))
    for ms in (2.126, 2.131, 2.129):
        record_baseline("matmul_tiled at 2048x2048x2048", ms)
    for ms in (1.000, 1.100):  # a GPU that slowed down by 10% part-way
        record_baseline("matmul_naive at 1024x1024x1024", ms)
    steady, drifted = sorted(baseline_drift(lane), reverse=True)
    assert (
        steady
        == "gpu0: matmul_tiled at 2048x2048x2048: 3 measurements, 2.126-2.131 ms (spread 0.2%)"
    )
    assert drifted.startswith(
        "gpu0: matmul_naive at 1024x1024x1024: 2 measurements, 1.000-1.100 ms"
    )
    assert "drifted during the batch" in drifted
    assert baseline_drift(tmp_path / "lanes/gpu1") == []

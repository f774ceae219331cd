"""A full disk under the output directory: one line naming the file, exit 2, and every result
recorded before it filled is still there, whole (SQLite, one transaction per result)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.batch.store import ResultStore
from grader.errors import GraderError
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT, run_grader


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB file system of its own (tmpfs; needs root, as CI runs)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def _report(index: int) -> Report:
    message = "x" * 20_000  # a large row, so that the disk fills after a few
    check = CheckResult(f"check {index}", "correctness", "passed", 1.0, 1.0, message)
    device = DeviceInfo(backend="cpu", name="test", detail="")
    return Report(
        exercise="ex1", title="t", source="k.cu", seed=index, device=device, checks=[check]
    )


def test_a_full_disk_stops_recording_with_one_line_and_keeps_every_recorded_result(
    small_disk: Path,
) -> None:
    path = small_disk / "results.sqlite"
    store = ResultStore(path)
    recorded, message = 0, ""
    for index in range(10_000):
        try:
            store.record("run", f"student{index}", "ex1", "digest", _report(index))
        except GraderError as exc:
            message = str(exc)
            break
        recorded += 1
    assert message.startswith(f"{path}: cannot record student{recorded}'s ex1")
    assert "\n" not in message and "--resume" in message
    store.close()
    assert recorded > 0
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT student, report_json FROM results ORDER BY id").fetchall()
    assert [s for s, _ in rows] == [f"student{i}" for i in range(recorded)]
    assert all(json.loads(text)["checks"][0]["name"] for _, text in rows)  # every row whole


@pytest.mark.slow
def test_a_batch_on_a_full_disk_says_so_in_one_line(small_disk: Path, tmp_path: Path) -> None:
    submissions = tmp_path / "submissions"
    (submissions / "alice").mkdir(parents=True)
    kernel = ROOT / "solutions/ex1-non-square/kernel.cu"
    (submissions / "alice" / "kernel.cu").write_bytes(kernel.read_bytes())
    _fill(small_disk)
    out = small_disk / "out"
    done = run_grader(
        ["batch", str(submissions), "--out", str(out), "--exercise", "ex1", "--backend", "cpu"]
    )
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("grader: error:")]
    assert len(errors) == 1 and str(small_disk) in errors[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert os.listdir(submissions / "alice") == ["kernel.cu"]  # nothing of the user's touched

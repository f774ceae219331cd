"""grader batch end to end on the CPU backend: layouts, outputs, and an interruption by kill -9
followed by --resume giving exactly the gradebook of an uninterrupted run."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grader.batch.store import ResultStore
from tests.conftest import ROOT, run_grader
from tests.processes import command, descendants

# each test runs `grader batch` (most several times) on real submissions, on the course with
# small largest cases (conftest's small_course): the batch, not the kernel's size, is tested
pytestmark = pytest.mark.slow

EX4 = ROOT / "solutions/ex4-register-tiling"
KERNELS = {
    "alice": EX4 / "kernel.cu",
    "bob": ROOT / "exercises/ex4-register-tiling/kernel.cu",
    "erin": EX4 / "wrong/no_edge_guards.cu",
    "frank": EX4 / "kernel.cu",
    "gina": EX4 / "wrong/second_row_skipped.cu",
}


@pytest.fixture
def submissions(tmp_path: Path) -> Path:
    root = tmp_path / "submissions"
    for student, kernel in KERNELS.items():
        (root / student).mkdir(parents=True)
        (root / student / "kernel.cu").write_bytes(kernel.read_bytes())
    with zipfile.ZipFile(root / "carol.zip", "w") as zipped:
        zipped.write(EX4 / "kernel.cu", "ex4-register-tiling/kernel.cu")
    (root / "dave").mkdir()  # handed in nothing
    (root / "hana").mkdir()  # a notebook with no cell marked for the exercise
    (root / "hana" / "work.ipynb").write_text(
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    return root


def _batch(course: Path, submissions: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--course",
        str(course),
        "batch",
        str(submissions),
        "--out",
        str(out),
        "--exercise",
        "ex4",
        "--backend",
        "cpu",
        "--seed",
        "1",
        *extra,
    ]


def test_a_batch_grades_every_layout_and_writes_what_instructors_read(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_grader(_batch(small_course, submissions, out))
    assert done.returncode == 0, done.stderr
    assert "carol.zip: zip, 1 of 1 exercise(s) found" in done.stderr
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert rows[0] == "student,ex4,total,not graded yet"
    assert (
        "alice,80,80,ex4: 20 need a GPU" in rows
        and "carol,80,80,ex4: 20 need a GPU" in rows
        and "dave,,0," in rows
    )
    assert "hana,0,0," in rows
    assert "no code cell for ex4" in (out / "feedback/hana.md").read_text()
    assert (out / "feedback/bob.md").read_text().startswith("# ex4: 2x2 register tiling")
    assert "## Missing submissions\n\n- dave: ex4" in (out / "summary.md").read_text()
    # graded only on a GPU: on the CPU backend no such points to export
    scores = (out / "performance_scores.csv").read_text().splitlines()
    assert scores[0] == "student,ex4 on a GPU" and "alice," in scores
    # each hand-in's time, for the gradebook's late policy: its files', or its zip's
    store = ResultStore(out / "results.sqlite")
    handed_in = store.handed_in()
    store.close()
    alice, carol = (submissions / "alice/kernel.cu"), (submissions / "carol.zip")
    assert handed_in[("alice", "ex4")] == (alice.stat().st_mtime, "files")
    assert handed_in[("carol", "ex4")] == (carol.stat().st_mtime, "files")


def test_unsafe_zips_are_refused_and_the_batch_goes_on(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(submissions / "mallory.zip", "w") as zipped:
        zipped.writestr("../../escaped.cu", "__global__ void k() {}")
    out = tmp_path / "out"
    done = run_grader(_batch(small_course, submissions, out))
    assert done.returncode == 0
    assert "mallory.zip: refused" in done.stderr and "points outside the archive" in done.stderr
    assert not (tmp_path / "escaped.cu").exists()
    # mallory's result is that reason, with no points; everyone else is graded
    assert "mallory,0,0," in (out / "gradebook.csv").read_text().splitlines()
    assert "points outside the archive" in (out / "feedback/mallory.md").read_text()
    # no kernel.cu was read: the feedback does not name one (seventh walk)
    assert (
        "`(no kernel read)` (not run: nothing to compile)."
        in (out / "feedback/mallory.md").read_text()
    )
    assert "alice,80,80,ex4: 20 need a GPU" in (out / "gradebook.csv").read_text().splitlines()


def test_kill_9_then_resume_gives_the_uninterrupted_gradebook(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    reference = tmp_path / "reference"
    assert run_grader(_batch(small_course, submissions, reference, "--jobs", "1")).returncode == 0

    out = tmp_path / "interrupted"
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", *_batch(small_course, submissions, out, "--jobs", "1")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    database = out / "results.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if database.exists():
            # the file exists a moment before its table does
            with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(database) as db:
                if db.execute("SELECT COUNT(*) FROM results").fetchone()[0] >= 2:
                    break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    with sqlite3.connect(database) as db:
        before = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert 2 <= before < 7  # interrupted part-way

    assert (
        run_grader(_batch(small_course, submissions, out, "--jobs", "1", "--resume")).returncode
        == 0
    )
    assert (out / "gradebook.csv").read_text() == (reference / "gradebook.csv").read_text()
    with sqlite3.connect(database) as db:
        counts = db.execute("SELECT COUNT(*) FROM results GROUP BY student, exercise").fetchall()
    assert [c for (c,) in counts] == [1] * 7  # nothing graded twice


def _rows(database: Path) -> int:
    # the file exists a moment before its table does
    with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(database) as db:
        return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    return 0


def test_ctrl_c_stops_the_batch_keeps_what_finished_and_says_how_to_resume(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    # enough work that the interrupt lands part-way on any machine: it is sent once the first
    # grading is recorded, with at most two under way (--jobs 2) and eight more waiting
    for n in range(6):
        (submissions / f"copy{n:02}").mkdir()
        (submissions / f"copy{n:02}/kernel.cu").write_bytes(KERNELS["alice"].read_bytes())
    out = tmp_path / "interrupted"
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", *_batch(small_course, submissions, out, "--jobs", "2")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as a terminal's Ctrl-C finds it: an xdist worker ignores SIGINT, and its children
        # would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    database = out / "results.sqlite"
    deadline = time.monotonic() + 120
    while _rows(database) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = [p for p in descendants(process.pid) if b"grader.worker" in command(p)]
    process.send_signal(signal.SIGINT)  # what Ctrl-C sends the grader
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    recorded = _rows(database)
    assert 1 <= recorded < 13  # stopped part-way, what finished kept
    assert f"interrupted: {recorded} of 13 grading(s) of this run are recorded" in stderr
    assert "run the same command with --resume" in stderr and "Traceback" not in stderr
    assert all(not command(child) for child in children)  # its gradings were stopped
    resumed = run_grader(_batch(small_course, submissions, out, "--jobs", "2", "--resume"))
    assert resumed.returncode == 0
    with sqlite3.connect(database) as db:
        counts = db.execute("SELECT COUNT(*) FROM results GROUP BY student, exercise").fetchall()
    assert [c for (c,) in counts] == [1] * 13  # nothing graded twice, nothing lost


def test_a_second_run_without_resume_is_refused_and_nothing_is_lost(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert run_grader(_batch(small_course, submissions, out)).returncode == 0
    gradebook = (out / "gradebook.csv").read_text()
    again = run_grader(_batch(small_course, submissions, out))
    assert again.returncode == 2
    assert "results.sqlite exists: pass --resume" in again.stderr
    assert (out / "gradebook.csv").read_text() == gradebook


def test_every_batch_verdict_equals_grader_check_for_the_same_file(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    import json

    out = tmp_path / "out"
    assert run_grader(_batch(small_course, submissions, out)).returncode == 0
    seeds = _seeds(out)  # the instructor's record keeps each grading's seed; feedback does not
    for student in ("alice", "bob", "erin", "gina"):
        batch = json.loads((out / f"feedback/{student}.json").read_text())[0]
        assert "seed" not in batch
        done = run_grader(
            [
                "--course",
                str(small_course),
                "check",
                "ex4",
                "--json",
                "--backend",
                "cpu",
                "--seed",
                str(seeds[student]),
                "--file",
                str(submissions / student / "kernel.cu"),
            ]
        )
        alone = json.loads(done.stdout)
        verdicts = [(c["name"], c["status"], c["score"], c["message"]) for c in alone["checks"]]
        assert [
            (c["name"], c["status"], c["score"], c["message"]) for c in batch["checks"]
        ] == verdicts


def test_a_gradescope_export_is_read_with_its_students(small_course: Path, tmp_path: Path) -> None:
    root = tmp_path / "export"
    for folder, kernel in (
        ("submission_101", EX4 / "kernel.cu"),
        ("submission_102", EX4 / "wrong/no_edge_guards.cu"),
    ):
        (root / folder).mkdir(parents=True)
        (root / folder / "kernel.cu").write_bytes(kernel.read_bytes())
    (root / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Ada L\n    :sid: '7001'\n"
        "submission_102:\n  :submitters:\n  - :name: Bo\n    :email: bo@uni.edu\n"
    )
    out = tmp_path / "out"
    done = run_grader(_batch(small_course, root, out))
    assert done.returncode == 0, done.stderr
    assert "Gradescope export: 2 submission(s)" in done.stderr
    rows = (out / "gradebook.csv").read_text().splitlines()
    # keyed by the submission folder (unique), each submitter named as the export names them
    assert rows == [
        "submission,SID,Email,Name,ex4,total,not graded yet",
        "submission_101,7001,,Ada L,80,80,ex4: 20 need a GPU",
        "submission_102,,bo@uni.edu,Bo,33.33,33.33,",
    ]
    # the term's gradebook keeps the people, so that it can be uploaded by SID too
    term = tmp_path / "term.csv"
    booked = run_grader(["--course", str(small_course), "gradebook", str(out), "--to", str(term)])
    assert booked.returncode == 0, booked.stderr
    lines = term.read_text().splitlines()
    assert lines[0].startswith("submission,SID,Email,Name,ex1,ex1 days late,")
    assert lines[1].startswith("submission_101,7001,,Ada L,")
    assert lines[2].startswith("submission_102,,bo@uni.edu,Bo,")


def _seeds(out: Path) -> dict[str, int]:
    import json

    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT student, report_json FROM results ORDER BY id").fetchall()
    # hana's notebook has no kernel: nothing was run, no seed drawn
    return {student: json.loads(text)["seed"] for student, text in rows if student != "hana"}


def test_batch_inputs_mix_the_public_seed_with_the_instructors_secret(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    for student in ("erin", "frank", "gina", "hana"):  # three hand-ins are enough here
        for file in (submissions / student).iterdir():
            file.unlink()
        (submissions / student).rmdir()
    first, second = tmp_path / "first", tmp_path / "second"
    assert run_grader(_batch(small_course, submissions, first)).returncode == 0
    assert run_grader(_batch(small_course, submissions, second)).returncode == 0
    seeds = _seeds(first)
    # the public seed (1) alone does not tell a student their inputs
    assert 1 not in seeds.values() and len(set(seeds.values())) == len(seeds)
    assert set(seeds.values()).isdisjoint(_seeds(second).values())  # another secret
    secret = first / "secret.key"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert secret.read_text() not in (first / "feedback/alice.md").read_text()
    # a re-grade in the same output directory draws the same inputs
    assert (
        run_grader(_batch(small_course, submissions, first, "--student", "alice")).returncode == 0
    )
    with sqlite3.connect(first / "results.sqlite") as db:
        rows = db.execute("SELECT report_json FROM results WHERE student = 'alice'").fetchall()
    import json

    assert len({json.loads(text)["seed"] for (text,) in rows}) == 1 and len(rows) == 2
    # re-grading one student keeps the batch's summary of everyone else's hand-ins
    assert "- dave: ex4" in (first / "summary.md").read_text()
    typo = run_grader(_batch(small_course, submissions, first, "--student", "alcie"))
    assert typo.returncode == 2 and f"{submissions}: no submission from alcie" in typo.stderr
    named = run_grader(_batch(small_course, submissions, first, "--student", "carol.zip"))
    assert named.returncode == 2 and "named without the file's extension: carol" in named.stderr


def test_kills_at_random_moments_lose_nothing_and_count_nothing_twice(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    import random

    reference = tmp_path / "reference"
    assert run_grader(_batch(small_course, submissions, reference, "--jobs", "2")).returncode == 0
    moments = random.Random(20261202).sample([x / 10 for x in range(3, 60)], 4)
    out = tmp_path / "interrupted"
    for number, moment in enumerate(moments):
        extra = ("--resume",) if number else ()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grader",
                *_batch(small_course, submissions, out, "--jobs", "2", *extra),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(moment)  # startup, discovery, unzipping, grading or writing: wherever it is
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    done = run_grader(_batch(small_course, submissions, out, "--jobs", "2", "--resume"))
    assert done.returncode == 0, done.stderr
    assert (out / "gradebook.csv").read_text() == (reference / "gradebook.csv").read_text()
    with sqlite3.connect(out / "results.sqlite") as db:
        counts = db.execute("SELECT COUNT(*) FROM results GROUP BY student, exercise").fetchall()
    assert [c for (c,) in counts] == [1] * 7, f"killed at {moments} s"


def test_a_submission_that_links_to_a_host_file_is_refused_without_quoting_it(
    small_course: Path, submissions: Path, tmp_path: Path
) -> None:
    host = tmp_path / "instructor-only.txt"
    host.write_text("__global__ void matmul_tiled_2x2() { SECRET_TOKEN_42 }\n")
    (submissions / "ivan").mkdir()
    (submissions / "ivan" / "kernel.cu").symlink_to(host)
    # the instructor's own link above the submissions (a red-team pass found it zeroed everyone)
    reached = tmp_path / "reached-through-a-link"
    reached.symlink_to(submissions, target_is_directory=True)
    out = tmp_path / "out"
    assert run_grader(_batch(small_course, reached, out)).returncode == 0
    feedback = (out / "feedback/ivan.md").read_text()
    assert "kernel.cu: a symbolic link; hand in the file itself" in feedback
    assert "SECRET_TOKEN_42" not in feedback
    gradebook = (out / "gradebook.csv").read_text().splitlines()
    assert "ivan,0,0," in gradebook and "alice,80,80,ex4: 20 need a GPU" in gradebook


def test_batch_backend_gpu_without_a_usable_gpu_exits_2_before_grading_anyone(
    submissions: Path, tmp_path: Path
) -> None:
    from tests.conftest import gpu_unavailable_reason

    if gpu_unavailable_reason() is None:
        pytest.skip("this machine has a usable GPU")
    out = tmp_path / "out"
    done = run_grader(
        ["batch", str(submissions), "--out", str(out), "--exercise", "ex4", "--backend", "gpu"]
    )
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("grader: error: --backend gpu: not usable here: no usable CUDA GPU")
    assert "not graded" not in done.stderr and not (out / "gradebook.csv").exists()
    assert not (out / "results.sqlite").exists()  # so a run with --backend cpu may follow
    # --gpus asks for GPUs too: not graded on the CPU without a word (seventh walk)
    lanes = run_grader(["batch", str(submissions), "--out", str(out), "--gpus", "0,1"])
    assert lanes.returncode == 2 and "Traceback" not in lanes.stderr
    assert "grader: error: --gpus 0,1: not usable here: no usable CUDA GPU" in lanes.stderr
    assert not (out / "results.sqlite").exists()

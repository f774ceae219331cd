"""A batch's seed is the instructor's: drawn from the secret and the submission's own bytes (a
student who saw one feedback cannot know the inputs of the next grading of a changed file), kept
in the results database, and never written into what the student is handed."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from grader.batch.secret import mixed_seed, submission_seed
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT, run_grader

KERNEL = ROOT / "solutions/ex4-register-tiling/kernel.cu"
WRONG = ROOT / "solutions/ex4-register-tiling/wrong/no_edge_guards.cu"
SECRET = b"s" * 64


def test_the_same_files_get_the_same_seed_and_a_change_anywhere_another() -> None:
    kernel, answers = KERNEL.read_bytes(), b"limit_64: threads_per_block\n"
    seed = submission_seed(SECRET, 1, "alice", "ex2", kernel, answers)
    assert submission_seed(SECRET, 1, "alice", "ex2", kernel, answers) == seed  # a re-grade
    others = {
        submission_seed(SECRET, 1, "alice", "ex2", kernel + b"// edited\n", answers),
        submission_seed(SECRET, 1, "alice", "ex2", kernel, answers + b"# edited\n"),
        submission_seed(b"t" * 64, 1, "alice", "ex2", kernel, answers),  # another secret
        submission_seed(SECRET, 2, "alice", "ex2", kernel, answers),  # another public seed
        submission_seed(SECRET, 1, "bob", "ex2", kernel, answers),
        submission_seed(SECRET, 1, "alice", "ex4", kernel, answers),
    }
    assert seed not in others and len(others) == 6
    # parts cannot run into each other: ("ab", "c") is not ("a", "bc")
    assert mixed_seed(SECRET, 1, "ab", "c", "d") != mixed_seed(SECRET, 1, "a", "bc", "d")


def _report() -> Report:
    check = CheckResult("compile", "compile", "failed", 0.0, 10.0, "kernel.cu:3: error")
    return Report("ex4", "t", "kernel.cu", 918273645, DeviceInfo("cpu", "CPU"), [check])


def _terminal(report: Report) -> str:
    console = Console(record=True, width=120)
    with console.capture() as captured:
        render_terminal(report, console)
    return captured.get()


def test_a_student_facing_report_shows_no_seed_where_a_students_own_run_does() -> None:
    own = _report()
    assert "seed 918273645: reproduce with --seed 918273645" in _terminal(own)
    assert own.to_json()["seed"] == 918273645  # `grader check --json`, and the store's record
    handed = own.for_student()
    for text in (_terminal(handed), json.dumps(handed.to_json()), render_markdown(handed)):
        assert "918273645" not in text and "seed" not in text
    assert "918273645" not in render_markdown(own)  # Markdown is feedback: never the seed
    again = Report.from_json(handed.to_json())
    assert again.student_facing and "seed" not in again.to_json()


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory, small_course: Path) -> Path:
    root = tmp_path_factory.mktemp("seeds")
    (root / "course").symlink_to(small_course)  # small largest cases: the seeds are tested
    for student, kernel in (("alice", KERNEL), ("erin", WRONG)):
        (root / "submissions" / student).mkdir(parents=True)
        (root / "submissions" / student / "kernel.cu").write_bytes(kernel.read_bytes())
    done = run_grader(_args(root))
    assert done.returncode == 0, done.stderr
    return root


def _args(root: Path, *extra: str) -> list[str]:
    where = [str(root / "submissions"), "--out", str(root / "out")]
    options = ["--exercise", "ex4", "--backend", "cpu", "--seed", "1", *extra]
    return ["--course", str(root / "course"), "batch", *where, *options]


def _stored_seeds(out: Path, student: str) -> list[int]:
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute(
            "SELECT report_json FROM results WHERE student = ? ORDER BY id", (student,)
        ).fetchall()
    return [json.loads(text)["seed"] for (text,) in rows]


def _seed_mentions(text: str, seeds: list[int]) -> list[str]:
    found = [m.group() for m in re.finditer(r"(?i)\bseed\b.{0,40}", text)]
    return found + [str(s) for s in seeds if re.search(rf"\b{s}\b", text)]


@pytest.mark.slow
def test_the_store_keeps_each_seed_and_the_markdown_feedback_shows_none(batch: Path) -> None:
    out = batch / "out"
    seeds = _stored_seeds(out, "alice") + _stored_seeds(out, "erin")
    assert len(seeds) == 2 and all(isinstance(s, int) for s in seeds)  # the instructor's record
    for name in ("feedback/alice.md", "feedback/erin.md", "gradebook.csv"):
        assert _seed_mentions((out / name).read_text(), seeds) == [], name
    assert "FAIL" in (out / "feedback/erin.md").read_text()  # the feedback itself is there


@pytest.mark.slow
def test_the_json_feedback_shows_no_seed(batch: Path) -> None:
    out = batch / "out"
    seeds = _stored_seeds(out, "alice") + _stored_seeds(out, "erin")
    for name in ("feedback/alice.json", "feedback/erin.json"):
        assert _seed_mentions((out / name).read_text(), seeds) == [], name


@pytest.mark.slow
def test_a_batch_seed_follows_the_submitted_bytes(batch: Path) -> None:
    out = batch / "out"
    secret = (out / "secret.key").read_bytes()
    kernel = batch / "submissions/alice/kernel.cu"
    assert _stored_seeds(out, "alice") == [
        submission_seed(secret, 1, "alice", "ex4", kernel.read_bytes(), b"")
    ]
    kernel.write_bytes(kernel.read_bytes() + b"// resubmitted\n")
    assert run_grader(_args(batch, "--student", "alice")).returncode == 0
    first, second = _stored_seeds(out, "alice")
    assert second != first  # a changed kernel is given new inputs
    assert second == submission_seed(secret, 1, "alice", "ex4", kernel.read_bytes(), b"")


@pytest.mark.slow
def test_gradescope_results_json_holds_no_seed(small_course: Path, tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "kernel.cu").write_bytes(WRONG.read_bytes())
    results = tmp_path / "results.json"
    args = ["--course", str(small_course), "gradescope", "--exercise", "ex4"]
    args += ["--submission", str(submission)]
    done = run_grader([*args, "--results", str(results)])
    assert done.returncode == 0, done.stderr
    text = results.read_text()
    assert '"failed"' in text and _seed_mentions(text, []) == []

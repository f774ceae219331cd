"""A resubmission that drops an exercise: the earlier result of it is no longer the student's,
in the batch's outputs and in the term's gradebook, and comes back only with a new hand-in."""

from __future__ import annotations

import os
from pathlib import Path

from grader.batch.selection import select_work
from grader.batch.student_folder import Submission
from grader.course import load_course
from tests.conftest import ROOT, run_grader


def _batch(course: Path, submissions: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--course", str(course), "batch", str(submissions), "--out", str(out),
        "--exercise", "ex4", "--backend", "cpu", "--seed", "1", *extra,
    ]  # fmt: skip


def test_an_exercise_dropped_from_a_resubmission_loses_its_earlier_result(
    small_course: Path, tmp_path: Path
) -> None:
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    (submissions / "ivy").mkdir(parents=True)
    (submissions / "jon").mkdir()
    # refused hand-ins are recorded (0 points, the reason) without running anything: fast
    os.symlink("/etc/passwd", submissions / "ivy" / "kernel.cu")
    os.symlink("/etc/passwd", submissions / "jon" / "kernel.cu")
    first = run_grader(_batch(small_course, submissions, out))
    assert first.returncode == 0, first.stderr
    planned = " ".join(first.stderr.split())
    assert "2 grading(s): 0 to run, " in planned  # as the progress bar counts them
    assert (
        "at a time; 2 refused hand-in(s), recorded with 0 points; in the whole batch: 0 "
        "missing, 2 refused" in planned
    )
    assert "ivy,0" in (out / "gradebook.csv").read_text()
    refused = (out / "feedback" / "ivy.md").read_text()  # nothing was compiled: no compile FAIL
    assert "## compile: REFUSED (nothing compiled)" in refused and "compile: FAIL" not in refused
    (submissions / "ivy" / "kernel.cu").unlink()  # ivy hands in again, without ex4

    again = run_grader(_batch(small_course, submissions, out, "--resume"))

    assert again.returncode == 0, again.stderr
    said = " ".join(again.stderr.split())
    assert "ivy: ex4 is no longer handed in: its result is set aside" in said
    gradebook = (out / "gradebook.csv").read_text().splitlines()
    assert "ivy,,0," in gradebook and "jon,0,0," in gradebook  # ivy's ex4: blank
    feedback = (out / "feedback" / "ivy.md").read_text()  # not the ex4 feedback of before
    assert (
        feedback.startswith("# Nothing graded") and "- folder, 0 of 1 exercise(s) found" in feedback
    )
    assert "- ivy: ex4" in (out / "summary.md").read_text()  # listed as missing
    term = tmp_path / "term.csv"
    made = run_grader(["--course", str(small_course), "gradebook", str(out), "--to", str(term)])
    assert made.returncode == 0, made.stderr
    # ivy is still the term's student, with no grade for ex4
    assert "\nivy,,,,,,,,,0,\n" in term.read_text() and "\njon,,,,,,,0,0,0," in term.read_text()
    # handed in again, it is graded again and is the student's once more
    os.symlink("/etc/hostname", submissions / "ivy" / "kernel.cu")
    back = run_grader(_batch(small_course, submissions, out, "--resume"))
    assert back.returncode == 0, back.stderr
    assert "ivy,0" in (out / "gradebook.csv").read_text()
    assert not (out / "feedback" / "ivy.md").read_text().startswith("# Nothing graded")


def test_re_grading_one_student_sets_aside_nothing_of_anyone_else(tmp_path: Path) -> None:
    ex4 = load_course(ROOT).find("ex4")
    kernel = tmp_path / "kernel.cu"
    kernel.write_text("// mine\n")
    found = [
        Submission("cat", ex4, kernel, None, "folder"),
        Submission("dog", ex4, None, None, "folder"),  # dropped ex4 since the last run
    ]
    assert select_work(found, ["cat"], set()).absent == []
    assert select_work(found, [], set()).absent == [("dog", "ex4")]
    assert select_work(found, ["cat"], set()).missing == [("dog", "ex4")]  # the batch's, still
    # dog's earlier ex4 result stands while this run grades only cat: dog is not missing it
    standing = {("dog", "ex4", "digest")}
    assert select_work(found, ["cat"], standing).missing == []
    assert select_work(found, [], standing).missing == [("dog", "ex4")]

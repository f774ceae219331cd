"""Where a batch writes: never into a folder of other files, never inside the submissions it
reads; a later run of other exercises keeps the earlier ones in the batch's own outputs; the
term's gradebook is never written over a batch's own files."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from grader.batch.store import ResultStore
from grader.batch.view import BatchView, carried_over, write_outputs
from grader.course import load_course
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT, run_grader


def _batch(course: Path, submissions: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--course", str(course), "batch", str(submissions), "--out", str(out),
        "--backend", "cpu", "--seed", "1", *extra,
    ]  # fmt: skip


def _submissions(root: Path) -> Path:
    # refused hand-ins (links) are recorded without running anything: fast
    for exercise in ("ex1-non-square", "ex4-register-tiling"):
        (root / "ivy" / exercise).mkdir(parents=True)
        os.symlink("/etc/passwd", root / "ivy" / exercise / "kernel.cu")
    return root


def test_a_folder_of_other_files_or_one_inside_the_submissions_is_refused(
    small_course: Path, tmp_path: Path
) -> None:
    submissions = _submissions(tmp_path / "submissions")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "gradebook.csv").write_text("my own grades\n")
    done = run_grader(_batch(small_course, submissions, mine, "--exercise", "ex1"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--out {mine} holds gradebook.csv, which no batch wrote" in done.stderr
    assert (mine / "gradebook.csv").read_text() == "my own grades\n"
    inside = run_grader(_batch(small_course, submissions, submissions / "results"))
    assert inside.returncode == 2 and "is inside" in inside.stderr
    assert not (submissions / "results").exists()


def test_a_run_killed_while_it_created_its_results_is_resumed(
    small_course: Path, tmp_path: Path
) -> None:
    # killed while SQLite created results.sqlite (before it turned to WAL), a run leaves its
    # rollback journal beside it: --resume refused the folder as one "no batch wrote" (a test
    # that kills batches at random moments met it once)
    submissions, out = _submissions(tmp_path / "submissions"), tmp_path / "out"
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex1")).returncode == 0
    (out / "results.sqlite-journal").write_bytes(b"")
    again = run_grader(_batch(small_course, submissions, out, "--exercise", "ex1", "--resume"))
    assert again.returncode == 0, again.stderr


def test_a_run_of_another_exercise_keeps_the_earlier_ones_and_the_term_goes_elsewhere(
    small_course: Path, tmp_path: Path
) -> None:
    submissions, out = _submissions(tmp_path / "submissions"), tmp_path / "out"
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex1")).returncode == 0
    again = run_grader(_batch(small_course, submissions, out, "--exercise", "ex4", "--resume"))
    assert again.returncode == 0, again.stderr
    assert (out / "gradebook.csv").read_text().splitlines()[
        0
    ] == "student,ex1,ex4,total,not graded yet"
    term = run_grader(
        ["--course", str(small_course), "gradebook", str(out), "--to", str(out / "gradebook.csv")]
    )
    assert term.returncode == 2 and "inside a batch's output folder" in term.stderr
    assert (out / "gradebook.csv").read_text().startswith("student,ex1,ex4,total")


def test_a_run_stopped_before_it_recorded_what_it_found_keeps_its_exercises_too(
    small_course: Path, tmp_path: Path
) -> None:
    # a first run stopped (Ctrl-C) after its results and before its view: the next run of another
    # exercise keeps the first's column, learnt from the results themselves
    submissions, out = _submissions(tmp_path / "submissions"), tmp_path / "out"
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex1")).returncode == 0
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("DELETE FROM batch_view")
    again = run_grader(_batch(small_course, submissions, out, "--exercise", "ex4", "--resume"))
    assert again.returncode == 0, again.stderr
    header, ivy = (out / "gradebook.csv").read_text().splitlines()
    assert header == "student,ex1,ex4,total,not graded yet" and ivy.startswith("ivy,0,0,")


def test_a_lone_kernel_is_not_taken_for_another_exercise_graded_into_the_same_folder(
    small_course: Path, tmp_path: Path
) -> None:
    submissions, out = _submissions(tmp_path / "submissions"), tmp_path / "out"
    broken = ROOT / "solutions/ex1-non-square/wrong/syntax_error.cu"  # graded at once: 0
    (submissions / "cat.cu").write_bytes(broken.read_bytes())
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex1")).returncode == 0
    assert "cat,0," in (out / "gradebook.csv").read_text()  # the one exercise of that run
    again = run_grader(_batch(small_course, submissions, out, "--exercise", "ex4", "--resume"))
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stderr.split())
    assert "not read: cat.cu (one kernel for 2 exercises, which one it is is not guessed" in said
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert "cat,0,,0," in rows  # its ex1 grade stands; not graded as ex4's
    # a later plain --resume (the folder's ex1 and ex4) reads it for neither, and sets nothing
    # aside: a kernel not read is no proof that ex1 was dropped (found by a red-team pass)
    plain = run_grader(_batch(small_course, submissions, out, "--resume"))
    assert plain.returncode == 0, plain.stderr
    assert "set aside" not in plain.stderr
    assert "cat,0,,0," in (out / "gradebook.csv").read_text().splitlines()
    assert "- cat: ex1" not in (out / "summary.md").read_text()  # its result stands
    # --student cannot add an exercise to the folder: everyone else would be missing it
    before = (out / "gradebook.csv").read_text()
    one = run_grader(
        _batch(small_course, submissions, out, "--student", "cat", "--exercise", "ex2")
    )
    assert one.returncode == 2 and "Traceback" not in one.stderr
    assert "--student re-grades in the exercises" in one.stderr and "ex2 is not one" in one.stderr
    assert (out / "gradebook.csv").read_text() == before
    # the same in a folder: its one kernel, outside an exercise's folder
    (submissions / "dan").mkdir()
    (submissions / "dan" / "mine.cu").write_bytes(broken.read_bytes())
    dan = run_grader(_batch(small_course, submissions, out, "--exercise", "ex4", "--resume"))
    assert dan.returncode == 0, dan.stderr
    assert (
        "dan: folder, 0 of 1 exercise(s) found; not read: mine.cu (the output folder grades "
        "ex1 too: a kernel outside its exercise's folder is not guessed"
        in " ".join(dan.stderr.split())
    )


def test_re_grading_one_student_keeps_the_folders_exercises_and_everyone_elses_grades(
    small_course: Path, tmp_path: Path
) -> None:
    # found by the sixth walk: --student without --exercise graded every exercise, took no lone
    # kernel, and set aside every student's results
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    broken = ROOT / "solutions/ex1-non-square/wrong/syntax_error.cu"  # graded at once: 0
    for student in ("cat", "dog"):
        (submissions / f"{student}.cu").write_bytes(broken.read_bytes())
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex2")).returncode == 0
    before = (out / "gradebook.csv").read_text()
    assert before.splitlines()[:3] == [
        "student,ex2,total,not graded yet", "cat,0,0,", "dog,0,0,"
    ]  # fmt: skip
    again = run_grader(_batch(small_course, submissions, out, "--student", "cat"))
    assert again.returncode == 0, again.stderr
    assert "set aside" not in again.stderr and "not read" not in again.stderr
    assert (out / "gradebook.csv").read_text() == before
    assert not (out / "feedback" / "dog.md").read_text().startswith("# Nothing graded")


def test_re_grading_one_student_from_a_folder_of_theirs_alone_keeps_everyone_else(
    small_course: Path, tmp_path: Path
) -> None:
    # found by the seventh walk: a late hand-in graded from a folder of its own with --student
    # left only that student in gradebook.csv and summary.md
    submissions, out, late = tmp_path / "submissions", tmp_path / "out", tmp_path / "late"
    submissions.mkdir()
    broken = ROOT / "solutions/ex1-non-square/wrong/syntax_error.cu"  # graded at once: 0
    for student in ("cat", "dog"):
        (submissions / f"{student}.cu").write_bytes(broken.read_bytes())
    (submissions / "gina").mkdir()  # nothing handed in
    (submissions / "eve.zip").write_bytes(b"not a zip")  # refused
    assert run_grader(_batch(small_course, submissions, out, "--exercise", "ex1")).returncode == 0
    before = (out / "summary.md").read_text()
    assert "- gina: ex1" in before and "eve (ex1)" in before
    late.mkdir()
    (late / "cat.cu").write_bytes(broken.read_bytes() + b"// again\n")

    again = run_grader(_batch(small_course, late, out, "--student", "cat"))

    assert again.returncode == 0, again.stderr
    # the console counts what summary.md lists (the eighth walk: it counted this run's only)
    assert "in the whole batch: 1 missing, 1 refused" in " ".join(again.stderr.split())
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["cat", "dog", "eve", "gina"]
    after = (out / "summary.md").read_text()
    assert "- gina: ex1" in after and "eve (ex1)" in after
    assert (out / "feedback" / "gina.md").read_text().startswith("# Nothing graded")


def test_a_run_of_every_exercise_killed_early_resumes_every_exercise(
    small_course: Path, tmp_path: Path
) -> None:
    # without --exercise, a resumed folder grades its own exercises: those of the killed run,
    # recorded before it graded anything, not only those it had results for
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    for student in ("ann", "bob"):
        for exercise in ("ex1-non-square", "ex4-register-tiling"):
            (submissions / student / exercise).mkdir(parents=True)
            solution = small_course / "solutions" / exercise / "kernel.cu"
            (submissions / student / exercise / "kernel.cu").write_bytes(solution.read_bytes())
    command = [
        sys.executable,
        "-m",
        "grader",
        *_batch(small_course, submissions, out, "--jobs", "1"),
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _results(out / "results.sqlite") < 1:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 1 <= _results(out / "results.sqlite") < 4  # killed part-way
    again = run_grader(_batch(small_course, submissions, out, "--jobs", "1", "--resume"))
    assert again.returncode == 0, again.stderr
    header, *rows = (out / "gradebook.csv").read_text().splitlines()
    assert header == "student,ex1,ex2,ex3,ex4,total,not graded yet"
    assert [r.split(",")[:5] for r in rows] == [
        ["ann", "100", "", "", "80"],
        ["bob", "100", "", "", "80"],
    ]


def _results(database: Path) -> int:
    # the file exists a moment before its table does
    with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(database) as db:
        return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    return 0


def test_feedback_names_the_exercises_a_student_handed_nothing_in_for(tmp_path: Path) -> None:
    out = tmp_path / "out"
    store = ResultStore(out / "results.sqlite")
    checks = [CheckResult("compile", "compile", "passed", 10, 10, "built")]
    report = Report("ex1", "Non-square", "kernel.cu", 1, DeviceInfo("cpu", "CPU"), checks)
    store.record("run", "erin", "ex1", "e", report)
    view = BatchView(["erin"], ["ex1", "ex4"], [("erin", "ex4")], [], [], [], [])
    write_outputs(out, load_course(ROOT), store, view)
    store.close()
    feedback = (out / "feedback" / "erin.md").read_text()
    assert "# Not found: ex4" in feedback and "nothing of yours for ex4" in feedback


def test_what_a_run_did_not_look_at_again_is_carried_over() -> None:
    earlier = BatchView(
        students=["ann", "eve", "gus"],
        exercises=["ex1", "ex4"],
        missing=[("gus", "ex1"), ("gus", "ex4")],
        refused=["eve (ex1): not a zip", "eve (ex4): not a zip"],
        skipped=["gus: skipped: empty"],
        notes=["gus: skipped: empty", "ann: folder, 2 of 2 exercise(s) found"],
        gpus=[],
    )
    # a run of ex4 for everyone (--exercise ex4 --resume): ex1's findings stand
    resumed = carried_over(earlier, {"ann", "eve", "gus"}, {"ex4"}, some_students=False)
    assert resumed.missing == [("gus", "ex1")] and resumed.refused == ["eve (ex1): not a zip"]
    assert resumed.students == [] and resumed.notes == []  # everyone was found again
    # a run of ann alone, from a folder of hers: everyone else's findings stand
    alone = carried_over(earlier, {"ann"}, {"ex1", "ex4"}, some_students=True)
    assert alone.students == ["eve", "gus"] and alone.missing == earlier.missing
    assert alone.refused == earlier.refused and alone.notes == ["gus: skipped: empty"]


def test_a_re_grade_of_a_student_with_nothing_readable_says_so_and_exits_1(
    small_course: Path, tmp_path: Path
) -> None:
    # the walks: a lone kernel.cu, which exercise unknown, left `--student dave` exiting 0
    submissions = tmp_path / "subs"
    (submissions / "dave").mkdir(parents=True)
    (submissions / "dave" / "kernel.cu").write_text("__global__ void k() {}\n")
    done = run_grader(_batch(small_course, submissions, tmp_path / "out", "--student", "dave"))
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == "nothing of dave was graded: none of it could be read (see above)"


def test_a_batch_that_left_gradings_without_a_verdict_says_so_and_exits_non_zero(
    small_course: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # a grading that raises (the host failed it) is reported and not recorded; the batch used
    # to end with exit status 0 all the same, its gradebook blank where the grades should be
    from grader import cli
    from grader.batch import grade_all

    def fails(*args: object, **options: object) -> None:
        raise RuntimeError("the grading child could not start")

    monkeypatch.setattr(grade_all, "start_submission", fails)
    submissions, out = _submissions(tmp_path / "submissions"), tmp_path / "out"
    code = cli.main(_batch(small_course, submissions, out, "--exercise", "ex1"))
    said = capsys.readouterr().err
    assert code == 1, said
    assert "ivy (ex1): not graded: the grading child could not start" in said
    assert "1 grading(s) could not be graded (see above)" in said
    assert "--resume" in said

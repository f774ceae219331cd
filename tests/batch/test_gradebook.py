"""The term's gradebook: every exercise's batch results merged, course.yaml's late policy applied
to each hand-in time (grace, penalty per day, a last day, per-student extensions), CSV + SQLite."""

from __future__ import annotations

import csv
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.batch.late import Lateness, lateness
from grader.batch.store import ResultStore
from grader.course import LatePolicy
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import run_grader

DUE = datetime(2026, 10, 1, 23, 59, tzinfo=timezone.utc)
POLICY = LatePolicy(
    due={"ex1": DUE},
    grace_minutes=10,
    penalty_per_day=0.2,
    max_days_late=3,
    extensions={"alice": {"ex1": 48}},
)
HOUR = 3600.0


@pytest.mark.parametrize(
    ("student", "after_due_s", "expected"),
    [
        ("bob", -HOUR, Lateness(0, 1.0)),
        ("bob", 9 * 60, Lateness(0, 1.0)),  # within the grace period
        ("bob", 11 * 60, Lateness(1, 0.8)),  # a part of a day counts as one
        ("bob", 2 * 24 * HOUR + 11 * 60, Lateness(3, pytest.approx(0.4))),
        ("bob", 4 * 24 * HOUR, Lateness(4, 0.0)),  # past the last day accepted
        ("alice", 47 * HOUR, Lateness(0, 1.0)),  # her 48-hour extension
        ("alice", 49 * HOUR, Lateness(1, 0.8)),
    ],
)
def test_the_late_policy(student: str, after_due_s: float, expected: Lateness) -> None:
    assert lateness(POLICY, student, "ex1", DUE.timestamp() + after_due_s) == expected


def test_without_a_deadline_or_a_time_nothing_is_taken() -> None:
    assert lateness(None, "bob", "ex1", DUE.timestamp() + 99 * 24 * HOUR) == Lateness(0, 1.0)
    assert lateness(POLICY, "bob", "ex4", DUE.timestamp() + 99 * 24 * HOUR) == Lateness(0, 1.0)
    assert lateness(POLICY, "bob", "ex1", None) == Lateness(None, 1.0)


def _record(
    out: Path, student: str, exercise: str, score: float, at: float | None, source: str = "export"
) -> None:
    checks = [CheckResult("compile", "compile", "passed", score, 100, "")]
    report = Report(exercise, "T", "kernel.cu", 1, DeviceInfo("cpu", "CPU"), checks)
    store = ResultStore(out / "results.sqlite")
    store.record("run", student, exercise, f"{student}{score}", report, at, source)
    store.close()


def test_gradebook_merges_the_batches_and_applies_the_policy(
    course_copy: Path, tmp_path: Path
) -> None:
    with (course_copy / "course.yaml").open("a") as course:
        course.write(
            "deadlines:\n"
            "  due: {ex1: 2026-10-01T23:59:00+00:00, ex4: 2026-10-15T23:59:00+00:00}\n"
            "  penalty_per_day: 0.25\n"
            "  extensions: {alice: {ex4: 24}}\n"
        )
    ex1, ex4 = tmp_path / "ex1-out", tmp_path / "ex4-out"
    due1 = datetime(2026, 10, 1, 23, 59, tzinfo=timezone.utc).timestamp()
    due4 = datetime(2026, 10, 15, 23, 59, tzinfo=timezone.utc).timestamp()
    _record(ex1, "alice", "ex1", 100, due1 - HOUR)
    _record(ex1, "bob", "ex1", 80, due1 + 30 * HOUR)  # two days late: half kept
    _record(ex4, "alice", "ex4", 60, due4 + 20 * HOUR)  # within her extension
    _record(ex4, "bob", "ex4", 40, None)  # no hand-in time: counted on time, marked ?
    target = tmp_path / "term.csv"
    done = run_grader(
        ["--course", str(course_copy), "gradebook", str(ex1), str(ex4), "--to", str(target)]
    )
    assert done.returncode == 0, done.stderr
    assert "2 submission(s) (a group's is a row per member), 4 grade(s), 1 late, 1 with no" in (
        done.stdout
    )
    rows = list(csv.reader(target.read_text().splitlines()))
    assert rows[0] == [
        "student", "ex1", "ex1 days late", "ex2", "ex2 days late", "ex3", "ex3 days late",
        "ex4", "ex4 days late", "total", "not graded yet",
    ]  # fmt: skip
    assert rows[1] == ["alice", "100", "0", "", "", "", "", "60", "0", "160", ""]
    assert rows[2] == ["bob", "40", "2", "", "", "", "", "40", "?", "80", ""]
    with sqlite3.connect(target.with_suffix(".sqlite")) as db:
        grades = db.execute(
            "SELECT student, exercise, raw, days_late, points FROM grades ORDER BY 1, 2"
        ).fetchall()
    assert grades[1] == ("alice", "ex4", 60.0, 0, 60.0) and grades[2] == (
        "bob",
        "ex1",
        80.0,
        2,
        40.0,
    )


def test_a_folder_that_is_not_a_batch_output_is_one_line(tmp_path: Path) -> None:
    done = run_grader(["gradebook", str(tmp_path), "--to", str(tmp_path / "g.csv")])
    assert done.returncode == 2
    assert f"{tmp_path}: no results.sqlite here" in done.stderr and "Traceback" not in done.stderr


def test_file_times_count_only_when_asked_for(course_copy: Path, tmp_path: Path) -> None:
    # a download resets files' times: taken by default, every student could look late
    with (course_copy / "course.yaml").open("a") as course:
        course.write("deadlines:\n  due: {ex1: 2026-10-01T23:59:00+00:00}\n")
    out = tmp_path / "out"
    due = datetime(2026, 10, 1, 23, 59, tzinfo=timezone.utc).timestamp()
    _record(out, "cy", "ex1", 100, due + 30 * HOUR, source="files")
    args = ["--course", str(course_copy), "gradebook", str(out), "--to", str(tmp_path / "g.csv")]
    plain = run_grader(args)
    assert plain.returncode == 0 and "0 late, 1 with no hand-in time" in plain.stdout
    asked = run_grader([*args, "--file-times"])
    assert asked.returncode == 0 and "1 late, 0 with no hand-in time" in asked.stdout
    assert list(csv.reader((tmp_path / "g.csv").read_text().splitlines()))[1][:3] == [
        "cy",
        "80",
        "2",
    ]


def test_the_gradebook_writes_over_an_earlier_gradebook_only(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _record(out, "alice", "ex1", 100, None)
    target = tmp_path / "term.csv"
    args = ["gradebook", str(out), "--to", str(target)]
    assert run_grader(args).returncode == 0
    assert run_grader(args).returncode == 0  # again, after more reviews say: its own files
    precious = tmp_path / "mine.csv"
    precious.write_text("my notes\n")
    (tmp_path / "mine.sqlite").write_text("not a gradebook")
    for given in (precious, tmp_path / "other.csv"):
        if given != precious:
            (tmp_path / "other.sqlite").write_text("a database of mine")
        done = run_grader(["gradebook", str(out), "--to", str(given)])
        assert done.returncode == 2 and "not a gradebook this command wrote" in done.stderr
    assert precious.read_text() == "my notes\n"
    assert (tmp_path / "other.sqlite").read_text() == "a database of mine"


def test_extensions_may_name_a_submitter_and_a_key_naming_no_one_is_said() -> None:
    from grader.batch.late import for_students
    from grader.batch.submitters import Submitter

    policy = POLICY.model_copy(
        update={"extensions": {"Frank": {"ex1": 48}, "9001": {"ex1": 24}, "nobody": {"ex1": 1}}}
    )
    roster = {
        "submission_7": [Submitter("9001", "g@uni.edu", "Grace"), Submitter("9002", "", "Hal")]
    }
    resolved, unknown = for_students(policy, {"frank", "submission_7"}, roster)
    assert resolved is not None and unknown == ["nobody"]
    assert resolved.extensions == {"frank": {"ex1": 48}, "submission_7": {"ex1": 24}}
    late = DUE.timestamp() + 20 * HOUR
    assert lateness(resolved, "submission_7", "ex1", late) == Lateness(0, 1.0)  # the group's


def test_the_gradebook_never_writes_over_a_review_sheet(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _record(out, "alice", "ex1", 100, None)
    sheet = tmp_path / "ex3.csv"
    sheet.write_text("student,exercise,answer_id,answer,l2_fits (4),comment\n")
    done = run_grader(["gradebook", str(out), "--to", str(sheet)])
    assert done.returncode == 2 and "not a gradebook this command wrote" in done.stderr
    assert sheet.read_text().startswith("student,exercise,answer_id")


def test_a_later_batch_that_found_an_exercise_dropped_wins_and_no_student_is_left_out(
    course_copy: Path, tmp_path: Path
) -> None:
    first, later = tmp_path / "first", tmp_path / "later"
    _record(first, "alice", "ex4", 80, None)
    _record(later, "alice", "ex4", 70, None)
    store = ResultStore.of_batch(later)
    # the later batch found alice's resubmission without ex4, and dave with nothing at all
    assert store.set_aside([("alice", "ex4")]) == [("alice", "ex4")]
    store.record_view({"students": ["alice", "dave"], "exercises": ["ex4"]})
    store.close()
    target = tmp_path / "term.csv"
    args = ["--course", str(course_copy), "gradebook", str(first), str(later), "--to", str(target)]

    done = run_grader(args)

    assert done.returncode == 0, done.stderr
    rows = {r[0]: r for r in csv.reader(target.read_text().splitlines())}
    assert rows["alice"][7:10] == ["", "", "0"]  # ex4 set aside by the later batch: no grade
    assert rows["dave"][1:] == ["", "", "", "", "", "", "", "", "0", ""]
    # the earlier batch alone still gives what it graded
    assert run_grader([*args[:3], str(first), "--to", str(target)]).returncode == 0
    assert (
        next(r for r in target.read_text().splitlines() if r.startswith("alice,")).split(",")[7]
        == "80"
    )


def test_a_person_in_several_exports_has_one_row_with_their_newest_grades(
    course_copy: Path, tmp_path: Path
) -> None:
    from grader.batch.submitters import Submitter

    alice = Submitter("1001", "alice@uni.edu", "Alice")
    bob, cat = Submitter("1002", "bob@uni.edu", "Bob"), Submitter("1003", "cat@uni.edu", "Cat")
    # each assignment's export has keys of its own; a resubmission gets a new one too
    ex1, ex4 = tmp_path / "ex1-out", tmp_path / "ex4-out"
    _record(ex1, "submission_101", "ex1", 80, 1000.0)
    _record(ex1, "submission_102", "ex1", 90, 1000.0)  # bob and cat's group
    _record(ex4, "submission_205", "ex4", 60, 2000.0)
    _record(ex4, "submission_206", "ex4", 50, 2000.0)
    _record(ex4, "submission_207", "ex4", 70, 3000.0)  # alice again, later
    for out, roster in (
        (ex1, {"submission_101": [alice], "submission_102": [bob, cat]}),
        (ex4, {"submission_205": [alice], "submission_206": [bob], "submission_207": [alice]}),
    ):
        store = ResultStore.of_batch(out)
        store.record_submitters(roster)
        store.close()
    target = tmp_path / "term.csv"

    done = run_grader(
        ["--course", str(course_copy), "gradebook", str(ex1), str(ex4), "--to", str(target)]
    )

    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(target.read_text().splitlines()))[1:]
    by_sid = {r[1]: r for r in rows}
    assert len(rows) == 3 and set(by_sid) == {"1001", "1002", "1003"}
    assert by_sid["1001"][0] == "submission_101 submission_205 submission_207"
    assert by_sid["1001"][4:5] + by_sid["1001"][10:11] + by_sid["1001"][-2:-1] == [
        "80",
        "70",
        "150",
    ]
    assert by_sid["1002"][4] == "90" and by_sid["1002"][10] == "50" and by_sid["1002"][-2] == "140"
    assert by_sid["1003"][4] == "90" and by_sid["1003"][10] == "" and by_sid["1003"][-2] == "90"
    with sqlite3.connect(target.with_suffix(".sqlite")) as db:
        counted = db.execute("SELECT student, exercise FROM grades ORDER BY 1").fetchall()
    assert ("submission_205", "ex4") not in counted  # alice's later hand-in replaced it
    # an export without her SID still finds her, by e-mail (eighth walk)
    _record(ex4, "submission_300", "ex4", 90, 4000.0)
    store = ResultStore.of_batch(ex4)
    store.record_submitters({"submission_300": [Submitter("", "Alice@uni.edu", "Alice")]})
    store.close()
    again = run_grader(
        ["--course", str(course_copy), "gradebook", str(ex1), str(ex4), "--to", str(target)]
    )
    assert again.returncode == 0, again.stderr
    rows = list(csv.reader(target.read_text().splitlines()))[1:]
    alices = [r for r in rows if r[3] == "Alice"]
    assert len(alices) == 1 and alices[0][1] == "1001" and alices[0][10] == "90"


def test_a_hand_in_replaced_by_the_same_persons_later_one_is_not_counted_in_the_summary(
    course_copy: Path, tmp_path: Path
) -> None:
    # the tenth walk: summary.md counted both of alice's gradings of ex1, and the earlier
    # key's feedback read as a grade of its own
    from grader.batch.submitters import Submitter
    from grader.batch.view import BatchView, write_outputs
    from grader.course import load_course

    out = tmp_path / "out"
    _record(out, "submission_1", "ex1", 20, 1000.0)
    _record(out, "submission_2", "ex1", 90, 1000.0)
    _record(out, "submission_3", "ex1", 100, 2000.0)  # alice again, later
    alice = Submitter("1001", "alice@uni.edu", "Alice")
    bob = Submitter("1002", "bob@uni.edu", "Bob")
    store = ResultStore.of_batch(out)
    store.record_submitters(
        {"submission_1": [alice], "submission_2": [bob], "submission_3": [alice]}
    )
    keys = ["submission_1", "submission_2", "submission_3"]
    view = BatchView(keys, ["ex1"], [], [], [], [], [])
    write_outputs(out, load_course(course_copy), store, view)
    store.close()

    summary = (out / "summary.md").read_text()
    assert "- ex1: 2 graded, median 95, min 90, max 100 (of 100)" in summary, summary
    earlier = (out / "feedback" / "submission_1.md").read_text()
    assert earlier.startswith("# Replaced: ex1\n\nA later hand-in of yours, under another")
    assert "Replaced" not in (out / "feedback" / "submission_3.md").read_text()

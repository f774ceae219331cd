"""`grader review`: written answers graded by a person with the spec's rubric, at the terminal or
through a CSV sheet; each review kept in the batch's store, merged into the gradebook and the
feedback; an answer nobody reviewed is pending, never 0, and a changed answer is pending again."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from grader.batch.reviews import parse_ticks, rubric_of
from grader.batch.store import ResultStore, StoredResult
from grader.batch.view import BatchView, write_outputs
from grader.checks.explanation import explanation_result
from grader.course import load_course
from grader.errors import GraderError
from grader.report.gradescope import results_json
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT, run_grader

EX3 = load_course(ROOT).find("ex3")
assert EX3.spec.answers is not None and EX3.spec.answers.review is not None
REVIEW = EX3.spec.answers.review
assert EX3.rubric is not None
RUBRIC = rubric_of(EX3.rubric)


def _report(answer: str) -> Report:
    checks = [
        CheckResult("compile", "compile", "passed", 90, 90, "built"),
        explanation_result(answer, REVIEW),
    ]
    return Report("ex3", "Profiling", "kernel.cu", 7, DeviceInfo("cpu", "CPU"), checks)


def _batch(out: Path, answers: dict[str, str]) -> None:
    store = ResultStore(out / "results.sqlite")
    for student, text in answers.items():
        store.record("run", student, "ex3", f"{student}:{text}", _report(text))
    store.close()


def _latest(out: Path) -> dict[str, dict[str, object]]:
    store = ResultStore.of_batch(out)
    try:
        return {r.student: r.report for r in store.latest()}
    finally:
        store.close()


def _explanation(report: dict[str, object]) -> dict[str, object]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return next(c for c in checks if c["name"] == "answers explanation")


def test_an_answer_not_reviewed_is_pending_in_every_output_never_zero(tmp_path: Path) -> None:
    report = _report("The matrices fit in L2.")
    assert report.passed and report.score == 90 and report.pending == 10
    assert report.to_json()["pending"] == 10
    markdown = render_markdown(report)
    assert "90/100 points (10 pending review)" in markdown
    assert "| answers explanation | PENDING | ?/10 |" in markdown
    [_, test] = results_json([report])["tests"]
    assert "status" not in test and test["max_score"] == 0  # a manual question on Gradescope
    assert test["name"].endswith("(graded by hand)") and "The matrices fit in L2." in test["output"]


def test_an_empty_explanation_is_lost_not_pending() -> None:
    result = explanation_result("  ", REVIEW)
    assert result.status == "failed" and result.score == 0 and result.max_score == 10
    assert "none given" in result.message


def test_reviews_at_the_terminal_are_recorded_one_by_one_and_merged(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A, B and C fit in L2.", "bob": "Tiling helps.", "cy": "L1 loads drop."})
    # alice earns items 1 and 3 with a comment; bob: a word that is no item, then none; then stop
    typed = "1 where_time_goes\nGood on L2.\nmaybe\nnone\n\nq\n"
    done = run_grader(["review", str(out), "--reviewer", "ta1"], typed=typed)
    assert done.returncode == 0, done.stderr
    assert "recorded: alice, ex3: 7/10" in done.stdout
    assert "'maybe' is not an item" in done.stdout
    assert "recorded: bob, ex3: 0/10" in done.stdout
    assert "stopped: every review given so far is recorded" in done.stdout
    assert "ex3: 2 reviewed, 1 pending" in done.stdout and f"grader review {out}" in done.stdout
    latest = _latest(out)
    alice = _explanation(latest["alice"])
    assert alice["status"] == "passed" and alice["score"] == 7
    assert "+ 4 l2_fits: " in str(alice["message"])
    # an item not earned is named, never what it says (a model answer)
    assert "not earned: reuse_shows (3)" in str(alice["message"])
    assert (
        "The tiling shows closer to the SMs"
        in (ROOT / "solutions/ex3-profiling/rubric.yaml").read_text()
    )
    assert "The tiling shows closer to the SMs" not in " ".join(str(alice["message"]).split())
    assert "comment: Good on L2." in str(alice["message"])
    assert latest["alice"]["score"] == 97 and latest["alice"]["pending"] == 0
    bob = _explanation(latest["bob"])
    assert bob["status"] == "failed" and bob["score"] == 0  # reviewed, no points: not a pass
    assert latest["bob"]["score"] == 90 and latest["bob"]["passed"] is False
    assert _explanation(latest["cy"])["status"] == "pending"
    # going on shows only what is pending: cy
    again = run_grader(["review", str(out)], typed="all\n\n")
    assert "cy (1 of 1)" in again.stdout and "recorded: cy, ex3: 10/10" in again.stdout
    assert "ex3: 3 reviewed, 0 pending" in again.stdout


def test_the_gradebook_and_feedback_show_reviews_and_pending_ones(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A, B and C fit in L2.", "bob": "Tiling helps."})
    reviewing = ["review", str(out), "--student", "alice", "--reviewer", "Tom Ta"]
    reviewed = run_grader(reviewing, typed="1\n\n")
    assert reviewed.returncode == 0
    assert "ex3: 1 reviewed, 1 pending" in reviewed.stdout  # the batch's, bob's too
    target = tmp_path / "term.csv"
    done = run_grader(["gradebook", str(out), "--to", str(target)])
    assert done.returncode == 0, done.stderr
    assert "not final: 1 written answer(s) of ex3 await review" in done.stdout
    rows = {r[0]: r for r in csv.reader(target.read_text().splitlines())}
    header = rows["student"]
    assert header[-2:] == ["total", "not graded yet"]
    assert rows["alice"][header.index("ex3")] == "94" and rows["alice"][-1] == ""
    assert rows["bob"][header.index("ex3")] == "90" and rows["bob"][-1] == "ex3: 10 pending review"
    feedback = run_grader(["feedback", str(out)])
    assert feedback.returncode == 0, feedback.stderr
    assert "1 result(s) hold written answers pending review" in feedback.stdout
    alice = (out / "feedback/alice.md").read_text()
    assert "94/100 points." in alice and "reviewed: 4/10" in alice
    assert "Tom Ta" not in alice  # who reviewed stays with the instructor
    bob = (out / "feedback/bob.md").read_text()
    assert "90/100 points (10 pending review)" in bob and "alice" not in bob
    assert json.loads((out / "feedback/bob.json").read_text())


def test_a_changed_answer_is_pending_again_and_the_same_text_keeps_its_review(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "first", "bob": "same"})
    assert run_grader(["review", str(out)], typed="all\n\nall\n\n").returncode == 0
    _batch(out, {"alice": "second", "bob": "same"})  # both resubmit; only alice's text changed
    latest = _latest(out)
    assert _explanation(latest["alice"])["status"] == "pending"
    assert _explanation(latest["bob"])["status"] == "passed"
    status = run_grader(["review", str(out), "--status"])
    assert "ex3: 1 reviewed, 1 pending" in status.stdout


def test_a_sheet_round_trip_records_the_filled_rows_and_leaves_blank_ones(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A", "bob": "B", "=cmd()": "C"})
    sheet = tmp_path / "ex3.csv"
    done = run_grader(["review", str(out), "--exercise", "ex3", "--sheet", str(sheet)])
    assert done.returncode == 0, done.stderr
    assert "3 answer(s) of ex3 to review" in done.stdout
    rows = list(csv.reader(sheet.read_text().splitlines()))
    assert rows[0][:4] == ["student", "exercise", "answer_id", "answer"]
    assert rows[0][4:] == ["l2_fits (4)", "reuse_shows (3)", "where_time_goes (3)", "comment"]
    assert rows[1][0] == "(rubric)" and "L2 cache" in rows[1][4]
    assert rows[2][:2] == ["'=cmd()", "ex3"]  # no formula runs in a TA's spreadsheet
    again = run_grader(["review", str(out), "--exercise", "ex3", "--sheet", str(sheet)])
    assert again.returncode == 2 and "already there" in again.stderr  # never overwritten
    by_name = {r[0]: r for r in rows[2:]}
    by_name["alice"][4:8] = ["x", " 0", " X ", "clear"]  # x or X earns, 0 does not
    by_name["'=cmd()"][4:8] = ["0", "0", "0", ""]
    _write(sheet, [rows[0], rows[1], *by_name.values()])
    done = run_grader(["review", str(out), "--record", str(sheet)])  # the batch's one exercise
    assert done.returncode == 0, done.stderr
    assert "2 review(s) recorded, 1 row(s) left blank" in done.stdout
    # a store that holds no record of its batch's run: its outputs are not rewritten
    assert f"{out / 'gradebook.csv'} is from before the reviews" in done.stdout
    assert "ex3: 2 reviewed, 1 pending" in done.stdout
    latest = _latest(out)
    assert _explanation(latest["alice"])["score"] == 7
    assert _explanation(latest["=cmd()"])["score"] == 0
    assert _explanation(latest["bob"])["status"] == "pending"
    # a sheet of them all again comes with the marks and comments given
    again = tmp_path / "again.csv"
    assert run_grader(["review", str(out), "--sheet", str(again), "--again"]).returncode == 0
    rows = {r[0]: r for r in csv.reader(again.read_text().splitlines())}
    assert rows["alice"][4:] == ["x", "0", "x", "clear"] and rows["bob"][4:] == ["", "", "", ""]


def test_reviews_rewrite_the_batchs_own_gradebook_summary_and_feedback(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A", "bob": "B"})
    store = ResultStore.of_batch(out)
    view = BatchView(["alice", "bob", "carl"], ["ex3"], [("carl", "ex3")], [], [], [], [])
    write_outputs(out, load_course(ROOT), store, view)
    store.close()
    gradebook = out / "gradebook.csv"
    assert "alice,90,90,ex3: 10 pending review" in gradebook.read_text().splitlines()
    sheet = tmp_path / "ex3.csv"
    assert run_grader(["review", str(out), "--sheet", str(sheet)]).returncode == 0
    rows = list(csv.reader(sheet.read_text().splitlines()))
    by_name = {r[0]: r for r in rows[2:]}
    by_name["alice"][4:8] = ["x", "0", "X", "clear"]
    _write(sheet, [rows[0], rows[1], *by_name.values()])

    done = run_grader(["review", str(out), "--record", str(sheet)])

    assert done.returncode == 0, done.stderr
    assert f"{out}: gradebook.csv, summary.md, performance_scores.csv and feedback/ written " in (
        done.stdout
    )
    lines = gradebook.read_text().splitlines()
    assert "alice,97,97," in lines and "bob,90,90,ex3: 10 pending review" in lines
    assert "carl,,0," in lines  # the batch's students, as it found them
    assert "7/10" in (out / "feedback" / "alice.md").read_text()
    assert "- carl: ex3" in (out / "summary.md").read_text()
    # stopping at once records nothing, and says nothing was written
    stopped = run_grader(["review", str(out)], typed="q\n")
    assert stopped.returncode == 0, stopped.stderr
    assert "written again" not in stopped.stdout and "from before" not in stopped.stdout


def test_a_sheet_never_carries_one_students_review_to_another_with_the_same_words(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "Same words.", "bob": "Same words."})
    assert (
        run_grader(["review", str(out), "--student", "alice"], typed="all\nmine\n").returncode == 0
    )
    sheet = tmp_path / "again.csv"
    assert run_grader(["review", str(out), "--sheet", str(sheet), "--again"]).returncode == 0
    rows = {r[0]: r for r in csv.reader(sheet.read_text().splitlines())}
    assert rows["alice"][4:] == ["x", "x", "x", "mine"] and rows["bob"][4:] == ["", "", "", ""]


def test_the_status_names_only_exercises_this_batch_has_answers_for(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "Two\n  lines of\n  text."})
    status = run_grader(["review", str(out), "--status"])
    assert (
        status.stdout.splitlines()[0] == "ex3: 0 reviewed, 1 pending" and "ex2" not in status.stdout
    )
    shown = run_grader(["review", str(out)], typed="s\n")
    assert "Two lines of text." in shown.stdout  # the answer's line breaks reflowed


def test_a_sheet_with_a_mistake_records_nothing_and_says_where(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A", "bob": "B"})
    sheet = tmp_path / "ex3.csv"
    run_grader(["review", str(out), "--exercise", "ex3", "--sheet", str(sheet)])
    rows = list(csv.reader(sheet.read_text().splitlines()))
    rows[2][4] = "x"
    rows[3][5] = "maybe"
    _write(sheet, rows)
    _batch(out, {"alice": "A, changed after the sheet"})
    done = run_grader(["review", str(out), "--exercise", "ex3", "--record", str(sheet)])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{sheet}:3: alice's answer changed since this sheet was written" in done.stderr
    assert f"{sheet}:4: column reuse_shows (3): 'maybe'" in done.stderr
    assert "nothing recorded" in done.stderr
    assert all(_explanation(r)["status"] == "pending" for r in _latest(out).values())


ALLOWED = (
    "mark x where the answer earns the item, 0 where it does not, or leave every item of the row "
    "blank to keep it pending"
)


def _filled(tmp_path: Path, marks: dict[str, list[str]]) -> tuple[Path, Path, dict[str, int]]:
    """A batch of alice and bob's ex3 answers, and its sheet with `marks` (items, then the
    comment) in their rows; the line of each student's row."""
    out, sheet = tmp_path / "out", tmp_path / "ex3.csv"
    _batch(out, {"alice": "A", "bob": "B"})
    assert run_grader(["review", str(out), "--sheet", str(sheet)]).returncode == 0
    rows = list(csv.reader(sheet.read_text().splitlines()))
    for row in rows[2:]:
        row[4:8] = marks.get(row[0], row[4:8])
    _write(sheet, rows)
    return out, sheet, {row[0]: line for line, row in enumerate(rows, start=1)}


@pytest.mark.parametrize(
    ("items", "column", "shown"),
    [
        (["y", "0", "0"], "l2_fits (4)", "'y'"),
        (["X", "no", "x"], "reuse_shows (3)", "'no'"),
        (["x", "-", "x"], "reuse_shows (3)", "'-'"),
        (["0", "0", "1"], "where_time_goes (3)", "'1'"),
        (["x", "0", ""], "where_time_goes (3)", "blank"),  # a row filled in part
    ],
)
def test_an_item_cell_is_x_or_0_anything_else_records_nothing(
    tmp_path: Path, items: list[str], column: str, shown: str
) -> None:
    out, sheet, line = _filled(tmp_path, {"alice": [*items, ""], "bob": ["x", "x", "x", "ok"]})
    done = run_grader(["review", str(out), "--record", str(sheet)])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"grader: error: {sheet}:{line['alice']}: column {column}: {shown}: {ALLOWED}; "
        "nothing recorded"
    ]
    assert all(_explanation(r)["status"] == "pending" for r in _latest(out).values())


def test_every_mistake_of_a_sheet_is_named_and_a_comment_alone_is_one(tmp_path: Path) -> None:
    marks = {"alice": ["y", "0", "", ""], "bob": ["", "", "", "good"]}  # as the walk-through had
    out, sheet, line = _filled(tmp_path, marks)
    done = run_grader(["review", str(out), "--record", str(sheet)])
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"grader: error: {sheet}:{line['alice']}: column l2_fits (4): 'y': {ALLOWED}",
        f"{sheet}:{line['alice']}: column where_time_goes (3): blank: {ALLOWED}",
        f"{sheet}:{line['bob']}: a comment but no item marked: {ALLOWED}",
        f"{sheet}: 3 mistakes, nothing recorded; mend them and run again",
    ]
    assert all(_explanation(r)["status"] == "pending" for r in _latest(out).values())
    out, sheet, _ = _filled(tmp_path / "blank", {"alice": [" X", "0 ", "x", " fine "]})
    done = run_grader(["review", str(out), "--record", str(sheet)])
    assert done.returncode == 0, done.stderr
    assert "1 review(s) recorded, 1 row(s) left blank" in done.stdout
    latest = _latest(out)
    assert _explanation(latest["alice"])["score"] == 7
    assert _explanation(latest["bob"])["status"] == "pending"


def _two_exercises(out: Path) -> None:
    """alice's ex3 answer and her ex2 one, each pending review."""
    _batch(out, {"alice": "A"})
    ex2 = load_course(ROOT).find("ex2").spec.answers
    assert ex2 is not None and ex2.review is not None
    report = Report("ex2", "Tiling", "kernel.cu", 7, DeviceInfo("cpu", "CPU"),
                    [explanation_result("Bigger tiles reuse more.", ex2.review)])  # fmt: skip
    store = ResultStore(out / "results.sqlite")
    store.record("run", "alice", "ex2", "alice:ex2", report)
    store.close()


def test_record_takes_the_exercise_from_the_sheets_rows(tmp_path: Path) -> None:
    out, sheet = tmp_path / "out", tmp_path / "ex3.csv"
    _two_exercises(out)
    written = run_grader(["review", str(out), "--sheet", str(sheet)])
    assert written.returncode == 2 and "this batch has answers of 2: give --exercise" in (
        written.stderr
    )
    assert (
        run_grader(["review", str(out), "--exercise", "ex3", "--sheet", str(sheet)]).returncode == 0
    )
    rows = list(csv.reader(sheet.read_text().splitlines()))
    rows[2][4:8] = ["x", "0", "0", ""]
    _write(sheet, rows)
    other = run_grader(["review", str(out), "--exercise", "ex2", "--record", str(sheet)])
    assert other.returncode == 2 and other.stderr.strip().splitlines() == [
        f"grader: error: {sheet}:2: the sheet is ex3's, not ex2's (--exercise): record it "
        "without --exercise, or give the sheet of that exercise"
    ]
    mixed = tmp_path / "mixed.csv"
    _write(mixed, [*rows[:2], [rows[2][0], "ex2", *rows[2][2:]]])
    done = run_grader(["review", str(out), "--record", str(mixed)])
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"grader: error: {mixed}:3: exercise 'ex2', but line 2 says 'ex3': a review sheet is "
        "one exercise's"
    ]
    done = run_grader(["review", str(out), "--record", str(sheet)])  # no --exercise: the sheet's
    assert done.returncode == 0, done.stderr
    assert "1 review(s) recorded" in done.stdout and "ex3: 1 reviewed, 0 pending" in done.stdout
    latest = {(r.student, r.exercise): r.report for r in _all_latest(out)}
    assert _explanation(latest["alice", "ex3"])["score"] == 4
    assert _explanation(latest["alice", "ex2"])["status"] == "pending"
    again = run_grader(["review", str(out), "--exercise", "ex3", "--record", str(sheet)])
    assert again.returncode == 0 and "1 review(s) recorded" in again.stdout  # agreeing: fine


def _all_latest(out: Path) -> list[StoredResult]:
    store = ResultStore.of_batch(out)
    try:
        return list(store.latest())
    finally:
        store.close()


def test_a_review_of_no_points_fails_in_every_output_and_some_points_pass(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A", "bob": "B"})
    assert run_grader(["review", str(out)], typed="1\n\nnone\n\n").returncode == 0  # alice; bob
    reports = {r.student: Report.from_json(r.report) for r in _all_latest(out)}
    bob, alice = reports["bob"], reports["alice"]
    assert not bob.passed and alice.passed
    assert "| answers explanation | FAIL | 0/10 |" in render_markdown(bob)
    assert "| answers explanation | PASS | 4/10 |" in render_markdown(alice)
    assert [t["status"] for t in results_json([bob])["tests"]] == ["passed", "failed"]
    assert results_json([alice])["tests"][1]["status"] == "passed"
    console = Console(record=True, width=120)
    render_terminal(bob, console)
    assert re.search(r"answers explanation\s+\S*\s*FAIL\s+0/10", console.export_text())
    assert run_grader(["feedback", str(out)]).returncode == 0
    assert "| answers explanation | FAIL | 0/10 |" in (out / "feedback/bob.md").read_text()
    [stored] = json.loads((out / "feedback/bob.json").read_text())
    assert stored["passed"] is False and _explanation(stored)["status"] == "failed"


def test_review_refuses_what_it_cannot_do_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _batch(out, {"alice": "A"})
    cases = [
        (["review", str(tmp_path)], "no results.sqlite here"),
        (["review", str(out), "--exercise", "ex4"], "ex4: no rubric"),
        (["review", str(out), "--student", "zed"], "no written answer to review from zed"),
        (["review", str(out), "--exercise", "ex3", "--record", str(tmp_path / "no.csv")],
         "cannot read the sheet"),
    ]  # fmt: skip
    for args, message in cases:
        done = run_grader(args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_typed_items_are_numbers_or_ids() -> None:
    assert parse_ticks("3, l2_fits", RUBRIC) == ("l2_fits", "where_time_goes")
    assert parse_ticks("all", RUBRIC) == tuple(i for i, _, _ in RUBRIC)
    assert parse_ticks("none", RUBRIC) == ()
    with pytest.raises(ValueError, match="'4' is not an item: give numbers 1-3"):
        parse_ticks("1 4", RUBRIC)


def test_a_rubric_that_does_not_add_up_is_refused_naming_both_files(course_copy: Path) -> None:
    rubric = course_copy / "solutions/ex3-profiling/rubric.yaml"
    rubric.write_text(rubric.read_text().replace("points: 4", "points: 5"))
    with pytest.raises(
        GraderError, match=r"rubric\.yaml: the items add up to 11, not the 10 points"
    ):
        load_course(course_copy)
    rubric.unlink()
    with pytest.raises(GraderError, match=r"answers\.review: its rubric .*rubric\.yaml not found"):
        load_course(course_copy)


def test_the_rubric_is_not_in_the_students_copy_and_their_check_still_counts_its_points(
    tmp_path: Path,
) -> None:
    student = tmp_path / "student"
    assert run_grader(["release", str(student)]).returncode == 0
    assert not (student / "solutions").exists()
    assert "l2_fits" not in "".join(p.read_text() for p in student.rglob("*.yaml"))
    course = load_course(student)
    ex3 = course.find("ex3")
    assert ex3.rubric is None and ex3.spec.max_score == 100


def _write(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)

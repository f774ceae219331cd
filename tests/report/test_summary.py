"""A batch's summary.md and gradebook rows, from stored results."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.batch.outputs import write_performance_scores
from grader.course import load_course
from grader.report.gradebook import gradebook, performance_scores
from grader.report.summary import render_summary
from grader.results import CPU_REFUSES, REFUSED, CheckResult, CheckStatus, DeviceInfo, Report
from tests.conftest import ROOT


@dataclass(frozen=True)
class _Stored:
    student: str
    exercise: str
    score: float
    max_score: float
    report: dict[str, Any]
    submitted_at: float = 0.0


@dataclass(frozen=True)
class _Person:
    sid: str
    email: str
    name: str


def _stored(student: str, status: CheckStatus, score: float) -> _Stored:
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, ""),
        CheckResult("timing", "performance", status, score, 20, "boom\nsecond line"),
    ]
    report = Report("ex4", "T", "k.cu", 1, DeviceInfo("gpu", "H200"), checks)
    return _Stored(student, "ex4", report.score, report.max_score, report.to_json())


def test_the_summary_counts_scores_failures_and_errors() -> None:
    results = [_stored("ann", "failed", 0), _stored("bob", "error", 0), _stored("cy", "passed", 20)]
    text = render_summary(results, ["dee: ex4"], refused=["eve (ex4): a link"])
    assert "- ex4: 3 graded, median 10, min 10, max 30 (of 30)" in text
    assert "## Most common failed checks\n\n- ex4: timing: 1\n" in text
    assert "- bob (ex4): timing: boom\n" in text
    assert "- eve (ex4): a link" in text and "- dee: ex4" in text
    assert text.endswith("## Baseline timings per GPU lane\n\n- none timed\n")


def test_a_refused_hand_in_is_not_counted_as_a_compile_failure() -> None:
    refused = CheckResult("compile", "compile", "failed", 0, 10, "a damaged zip", (REFUSED,))
    wrong = CheckResult("compile", "compile", "failed", 0, 10, "kernel.cu:3: error")
    results = [
        _Stored(
            s, "ex4", 0, 10, Report("ex4", "T", "k.cu", 1, DeviceInfo("cpu", "C"), [c]).to_json()
        )
        for s, c in (("ann", refused), ("bob", wrong))
    ]
    text = render_summary(results, [], refused=["ann (ex4): a damaged zip"])
    assert "## Most common failed checks\n\n- ex4: compile: 1\n" in text
    assert "- ex4: 1 graded, median 0, min 0, max 0 (of 10); 1 refused (0 points)" in text


def test_gradebook_rows_per_member_and_performance_points_alone() -> None:
    results = [_stored("ann", "passed", 15)]
    header, rows = gradebook(["ann", "bob"], ["ex4", "ex1"], results)
    assert header == ["student", "ex4", "ex1", "total", "not graded yet"]
    assert rows == [["ann", "25", "", "25", ""], ["bob", "", "", "0", ""]]
    roster = {"ann": [_Person("1", "a@x", "Ann"), _Person("2", "", "Al")]}
    timed = {"ex4": {"timing"}}
    header, rows = performance_scores(["ann", "bob"], ["ex4"], results, timed, roster)
    assert header == ["submission", "SID", "Email", "Name", "ex4 on a GPU"]
    assert rows == [
        ["ann", "1", "a@x", "Ann", "15"],
        ["ann", "2", "", "Al", "15"],
        ["bob", "", "", "", "0"],  # nothing handed in, for an exercise graded on a GPU
    ]
    # the same leading columns as the gradebook's, with a roster and without
    assert gradebook(["ann", "bob"], ["ex4"], results, roster)[0][:4] == header[:4]
    assert performance_scores(["ann"], ["ex4"], results, timed)[0] == ["student", "ex4 on a GPU"]


def test_points_that_need_a_gpu_are_listed_as_not_graded_yet_and_left_out_of_gpu_scores() -> None:
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, ""),
        CheckResult("answers roofline", "answers", "skipped", 0, 14, "needs a GPU and ncu"),
        CheckResult("answers explanation", "answers", "pending", 0, 10, "pending"),
    ]
    report = Report("ex3", "T", "k.cu", 1, DeviceInfo("cpu", "CPU"), checks)
    cpu = _Stored("ann", "ex3", report.score, report.max_score, report.to_json())
    _, rows = gradebook(["ann"], ["ex3"], [cpu])
    assert rows == [["ann", "10", "10", "ex3: 14 need a GPU, 10 pending review"]]
    gpu_checks = {"ex3": {"answers roofline"}}
    # graded without a GPU: blank, also for nothing handed in (bob); a kernel that did not
    # compile scores 0 there, known without a GPU (cy)
    failed = [
        CheckResult("compile", "compile", "failed", 0, 10, "kernel.cu:3: error"),
        CheckResult("answers roofline", "answers", "skipped", 0, 14, "not run: no compile"),
    ]
    broken = Report("ex3", "T", "k.cu", 1, DeviceInfo("cpu", "CPU"), failed)
    cy = _Stored("cy", "ex3", broken.score, broken.max_score, broken.to_json())
    assert performance_scores(["ann", "bob", "cy"], ["ex3"], [cpu, cy], gpu_checks)[1] == [
        ["ann", ""],
        ["bob", ""],
        ["cy", "0"],
    ]
    assert report.to_json()["needs_gpu"] == 14 and report.to_json()["pending"] == 10
    text = render_summary([cpu], [])
    assert (
        "## Not graded yet" in text and "- ex3: up to 14 points of each grading need a GPU" in text
    )


def test_performance_scores_have_a_column_only_for_exercises_graded_on_a_gpu(
    tmp_path: Path,
) -> None:
    course = load_course(ROOT)
    target = tmp_path / "performance_scores.csv"
    write_performance_scores(target, ["ann"], [course.find("ex1"), course.find("ex4")], [])
    assert target.read_text().splitlines() == ["student,ex4 on a GPU", "ann,"]


def _ex1(student: str, backend: str, symptoms: tuple[str, ...], status: CheckStatus) -> _Stored:
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, "", symptoms),
        CheckResult("correctness a", "correctness", status, 45 * (status == "passed"), 45, ""),
        CheckResult("correctness b", "correctness", status, 45 * (status == "passed"), 45, ""),
    ]
    report = Report("ex1", "T", "k.cu", 1, DeviceInfo(backend, backend.upper()), checks)
    return _Stored(student, "ex1", report.score, report.max_score, report.to_json())


def test_a_gpu_batch_carries_the_correctness_of_kernels_the_cpu_refuses(tmp_path: Path) -> None:
    # Gradescope's CPU grading left ann's correctness to a GPU (inline PTX): the GPU batch's
    # performance_scores.csv carries it, and only hers (bob's came from Gradescope already)
    ann = _ex1("ann", "gpu", (CPU_REFUSES,), "passed")
    bob = _ex1("bob", "gpu", (), "passed")
    course = load_course(ROOT)
    target = tmp_path / "performance_scores.csv"
    write_performance_scores(target, ["ann", "bob"], [course.find("ex1")], [ann, bob])
    assert target.read_text().splitlines() == ["student,ex1 on a GPU", "ann,90", "bob,"]
    # a CPU batch carries nothing: its correctness needs a GPU, in the gradebook's last column
    cpu = _ex1("ann", "cpu", (CPU_REFUSES,), "skipped")
    write_performance_scores(target, ["ann"], [course.find("ex1")], [cpu])
    assert target.read_text().splitlines() == ["student", "ann"]


def test_errors_of_one_grading_with_one_message_are_listed_once() -> None:
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, ""),
        *(
            CheckResult(f"correctness {n}", "correctness", "error", 0, 30, "not run: gone\nmore")
            for n in "abc"
        ),
    ]
    report = Report("ex1", "T", "k.cu", 1, DeviceInfo("cpu", "C"), checks)
    text = render_summary([_Stored("ann", "ex1", 10, 100, report.to_json())], [])
    errored = text.split("## Gradings that errored\n\n", 1)[1].split("\n\n", 1)[0]
    assert (
        errored
        == "- ann (ex1): 3 checks (correctness a, correctness b, correctness c): not run: gone"
    )


def test_one_persons_submissions_under_two_keys_are_one_row_with_the_later_hand_ins() -> None:
    # the eighth walk: a late export's new key for the same person (by SID, or by e-mail where
    # the export lacks the SID) gave the batch's own CSVs a second row
    early = _stored("submission_1", "passed", 20)
    late = replace(_stored("submission_9", "failed", 0), submitted_at=2.0)
    ex1 = _ex1("submission_1", "gpu", (), "passed")
    roster = {
        "submission_1": [_Person("7", "ann@x", "Ann")],
        "submission_9": [_Person("", "ANN@x", "Ann")],
        "submission_2": [_Person("8", "bob@x", "Bob")],
    }
    keys = ["submission_1", "submission_2", "submission_9"]
    _, rows = gradebook(keys, ["ex1", "ex4"], [early, late, ex1], roster)
    assert rows == [
        ["submission_1 submission_9", "7", "ann@x", "Ann", "100", "10", "110", ""],
        ["submission_2", "8", "bob@x", "Bob", "", "", "0", ""],
    ]
    gpu = {"ex4": {"timing"}, "ex1": set()}
    _, rows = performance_scores(keys, ["ex4"], [early, late, ex1], gpu, roster)
    assert rows == [
        ["submission_1 submission_9", "7", "ann@x", "Ann", "0"],  # the later hand-in's timing
        ["submission_2", "8", "bob@x", "Bob", "0"],  # nothing handed in, graded on a GPU
    ]

"""Gradescope's results.json: a test per check, GPU-only checks worth 0 and said to be graded
separately, a leaderboard where GFLOP/s were measured, and what was not handed in."""

from __future__ import annotations

import json

from grader.report.gradescope import (
    NOT_CARRIED,
    SEPARATELY,
    instructor_lines,
    render_results,
    results_json,
)
from grader.results import CPU_REFUSES, CheckResult, DeviceInfo, Report


def _report() -> Report:
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, "compiled"),
        CheckResult("correctness 8x8x8", "correctness", "failed", 0, 70, "3 elements wrong"),
        CheckResult("performance", "performance", "skipped", 0, 20, "needs a GPU: none here"),
        CheckResult("sweep", "performance", "passed", 5, 5, "", figures={"student_gflops": 12.5}),
    ]
    return Report("ex4", "Register tiling", "kernel.cu", 9, DeviceInfo("cpu", "CPU"), checks)


def test_each_check_is_a_test_and_gpu_only_ones_are_worth_nothing_here() -> None:
    data = results_json([_report()])
    assert [t["name"] for t in data["tests"]][:2] == ["ex4: compile", "ex4: correctness 8x8x8"]
    assert [t.get("status") for t in data["tests"]] == ["passed", "failed", None, "passed"]
    timing = data["tests"][2]  # no status: Gradescope shows no red cross on a 0/0 test
    assert timing["name"] == "ex4: performance (graded separately)"
    assert timing["max_score"] == 0.0 and timing["output"] == SEPARATELY
    assert data["score"] == 15 and data["output"] == "Graded on CPU"
    assert data["leaderboard"] == [{"name": "ex4 GFLOP/s", "value": 12.5, "order": "desc"}]
    assert data["stdout_visibility"] == "hidden"


def test_exercises_handed_nothing_in_for_are_named() -> None:
    data = json.loads(render_results([_report()], ["ex1", "ex2"]))
    assert data["output"] == "Graded on CPU; nothing found for ex1, ex2"
    assert "leaderboard" not in results_json([])


def test_the_device_is_stored_and_the_seed_goes_to_the_instructors_log_only() -> None:
    data = results_json([_report()])
    assert data["extra_data"] == {"gradings": [{"exercise": "ex4", "device": "CPU"}]}
    assert "seed" not in json.dumps(data)  # nothing a student is handed holds it
    (line,) = instructor_lines([_report()])
    assert line.startswith("ex4: seed 9 on CPU; reproduce with grader check ex4 --seed 9")


def test_a_check_graded_on_a_gpu_shows_the_same_way_whatever_happened_to_it_here() -> None:
    # a kernel failing correctness is not timed: 0 on a GPU too, and still 0/0 here, as for
    # everyone, so that no student's Gradescope maximum differs
    checks = [
        CheckResult("correctness 8x8x8", "correctness", "failed", 0, 80, "3 elements wrong"),
        CheckResult("performance", "performance", "skipped", 0, 20, "not timed: fails first"),
    ]
    report = Report("ex4", "Register tiling", "kernel.cu", 9, DeviceInfo("cpu", "CPU"), checks)
    [_, timing] = results_json([report], on_gpu={"ex4": {"performance"}})["tests"]
    assert timing["name"] == "ex4: performance (graded separately)" and "status" not in timing
    assert (timing["score"], timing["max_score"]) == (0.0, 0.0)
    assert timing["output"] == f"{SEPARATELY}\n\nHere: not timed: fails first"


def test_a_hand_in_refused_unread_names_no_device_and_says_why_in_the_log() -> None:
    refused = CheckResult("compile", "compile", "failed", 0, 10, "work.ipynb: not a notebook")
    report = Report(
        "ex4", "T", "work.ipynb", 0, DeviceInfo("none", "nothing to compile"), [refused]
    )
    assert results_json([report])["output"] == "Nothing was graded"
    assert instructor_lines([report]) == ["ex4: not graded: work.ipynb: not a notebook"]


def test_on_a_gpu_the_checks_graded_there_count_as_any_other() -> None:
    timed = CheckResult("performance", "performance", "passed", 20, 20, "1.89x")
    report = Report("ex4", "T", "kernel.cu", 9, DeviceInfo("gpu", "NVIDIA H200"), [timed])
    [test] = results_json([report], on_gpu={"ex4": {"performance"}})["tests"]
    assert (test["score"], test["max_score"], test["status"]) == (20, 20, "passed")


def _refused(symptoms: tuple[str, ...]) -> Report:
    why = "needs a GPU: the CPU backend cannot run this kernel; a GPU grades it\nkernel.cu:6: no"
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, "compiled", symptoms),
        CheckResult("correctness 8x8x8", "correctness", "skipped", 0, 90, why),
    ]
    return Report("ex1", "T", "kernel.cu", 9, DeviceInfo("cpu", "CPU"), checks)


def test_correctness_the_cpu_refuses_in_the_source_is_graded_separately_with_the_reason() -> None:
    # a GPU batch sees the same refusal in the source and carries these points
    [_, test] = results_json([_refused((CPU_REFUSES,))])["tests"]
    assert test["name"] == "ex1: correctness 8x8x8 (graded separately)" and "status" not in test
    assert (test["score"], test["max_score"]) == (0.0, 0.0)
    assert test["output"].startswith(f"{SEPARATELY}\n\nHere: needs a GPU: the CPU backend cannot")
    assert test["output"].endswith("kernel.cu:6: no")


def test_correctness_refused_only_by_g_plus_plus_fails_here_and_says_what_to_do() -> None:
    # a GPU batch cannot tell such a kernel from the source: "graded separately" would be points
    # that never arrive
    [_, test] = results_json([_refused(())])["tests"]
    assert test["name"] == "ex1: correctness 8x8x8" and test["status"] == "failed"
    assert (test["score"], test["max_score"]) == (0.0, 90)
    assert test["output"].endswith(NOT_CARRIED) and "kernel.cu:6: no" in test["output"]

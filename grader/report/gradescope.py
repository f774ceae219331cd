"""Gradescope's results.json, in the form its autograder specification asks for: a test per
check with score, max_score, status, output and visibility; a leaderboard where GFLOP/s were
measured. Timing needs a GPU, which Gradescope's machines lack: those checks are worth 0 here
and say that the instructor grades them separately."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from grader.results import CheckResult, CheckStatus, Report

REVIEWED = (
    "graded by hand: your instructor reviews this answer with the exercise's rubric and adds "
    "its points"
)
SEPARATELY = (
    "graded separately: this check needs a GPU (timing, profiling, figures measured on one, or "
    "a kernel the CPU backend cannot run), which Gradescope's machines lack; your instructor "
    "grades it on a GPU and imports the points"
)
NOT_CARRIED = (
    "Gradescope grades correctness on the CPU backend, which cannot build this kernel, and your "
    "instructor's GPU grading cannot tell that from the source: ask them to grade it on a GPU, "
    "or rewrite what the message names"
)


def _test(report: Report, check: CheckResult, on_gpu: Collection[str]) -> dict[str, Any]:
    # every check graded on a GPU shows the same way, whatever happened to it here: a kernel
    # that failed correctness is not timed (0 on a GPU too), and says so below the common text
    correctness = check.kind == "correctness"
    if correctness and check.needs_a_gpu and not report.cpu_refuses:
        # refused only when g++ built it: a GPU batch would not know to import these points
        check = replace(
            check, status=CheckStatus.FAILED, message=f"{check.message}\n\n{NOT_CARRIED}"
        )
    gpu_only = check.needs_a_gpu or (check.name in on_gpu and report.device.backend != "gpu")
    pending = check.status == "pending"
    shown = gpu_only and (correctness or not check.needs_a_gpu)
    said = f"\n\nHere: {check.message}" if shown else ""
    test: dict[str, Any] = {
        "name": f"{report.exercise}: {check.name}",
        "score": 0.0 if gpu_only else check.score,
        "max_score": 0.0 if gpu_only or pending else check.max_score,
        "output": SEPARATELY + said if gpu_only else check.message,
        "visibility": "visible",
    }
    if pending:  # a person grades it (a manual question on Gradescope): no status, never 0/N
        test["name"] += " (graded by hand)"
        test["output"] = f"{REVIEWED}.\n\n{check.message}"
    elif gpu_only:  # neither passed nor failed here: no status, no red cross on a 0/0 test
        test["name"] += " (graded separately)"
    else:
        test["status"] = "passed" if check.status == "passed" else "failed"
    return test


def results_json(
    reports: Sequence[Report],
    missing: Sequence[str] = (),
    on_gpu: Mapping[str, Collection[str]] | None = None,
) -> dict[str, Any]:
    """The results document for these reports; `missing`: the exercises nothing was found for
    (with why, where the hand-in says); `on_gpu`: per exercise, the checks graded on a GPU only
    (those a GPU batch's performance_scores.csv carries)."""
    gpu = on_gpu or {}
    tests = [
        _test(report, check, gpu.get(report.exercise, ()))
        for report in reports
        for check in report.checks
    ]
    leaderboard = [
        {
            "name": f"{report.exercise} GFLOP/s",
            "value": check.figures["student_gflops"],
            "order": "desc",
        }
        for report in reports
        for check in report.checks
        if "student_gflops" in check.figures
    ]
    # a hand-in refused unread ran on nothing: it is no device to name
    devices = ", ".join(sorted({str(r.device) for r in reports if r.device.backend != "none"}))
    output = f"Graded on {devices}" if devices else "Nothing was graded"
    if missing:
        output += f"; nothing found for {', '.join(missing)}"
    result: dict[str, Any] = {
        "score": round(sum(t["score"] for t in tests), 2),
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    if leaderboard:
        result["leaderboard"] = leaderboard
    # stored by Gradescope, not shown: what each grading ran on. The seed is not here: nothing
    # a student is handed holds it (SECURITY.md); `instructor_lines` carries it to the log
    result["extra_data"] = {
        "gradings": [{"exercise": r.exercise, "device": str(r.device)} for r in reports]
    }
    return result


def instructor_lines(reports: Sequence[Report]) -> list[str]:
    """For Gradescope's stdout, which only the instructor sees (stdout_visibility hidden): each
    grading's seed and device, and how to reproduce it."""
    return [
        f"{r.exercise}: seed {r.seed} on {r.device}; reproduce with "
        f"grader check {r.exercise} --seed {r.seed} --file <the submission's kernel>"
        if r.device.backend != "none"
        else f"{r.exercise}: not graded: {r.checks[0].message if r.checks else 'nothing to grade'}"
        for r in reports
    ]


def render_results(
    reports: Sequence[Report],
    missing: Sequence[str] = (),
    on_gpu: Mapping[str, Collection[str]] | None = None,
) -> str:
    """results.json's text."""
    return json.dumps(results_json(reports, missing, on_gpu), indent=2)

"""The terminal report: what a student reads after `grader check`."""

from __future__ import annotations

from rich.console import Console

from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal
from grader.results import NEEDS_GPU, CheckResult, DeviceInfo, Report


def _shown(report: Report) -> str:
    console = Console(record=True, width=100)  # the table cuts messages short
    with console.capture() as captured:
        render_terminal(report, console)
    return captured.get()


def test_checks_that_fail_with_one_message_are_named_together_and_it_is_said_once() -> None:
    # the tenth walk: `measurements: "..."` printed the same message under each tile size
    said = "answers.yaml:5:1: measurements: Input should be a valid dictionary"
    checks = [
        CheckResult(f"answers TILE_SIZE={t} figures", "answers", "failed", 0, 6, said)
        for t in (8, 16, 32)
    ]
    checks.append(CheckResult("answers limit of 64", "answers", "failed", 0, 6, "not answered"))
    report = Report("ex2", "Tile-size sweep", "kernel.cu", 1, DeviceInfo("cpu", "-"), checks)
    shown = _shown(report)
    assert shown.count(said) == 1
    names = "answers TILE_SIZE=8 figures, answers TILE_SIZE=16 figures, answers TILE_SIZE=32"
    assert names in shown
    assert "answers limit of 64: FAIL" in shown  # a message of its own, under its own name


def test_a_kernel_whose_correctness_waits_for_a_gpu_passes_only_what_ran_without_one() -> None:
    # "PASSED  10/100 points (90 need a GPU)": a student read the exercise as passed
    skipped = f"{NEEDS_GPU}: the CPU backend cannot run this kernel; a GPU grades it"
    checks = [
        CheckResult("compile", "compile", "passed", 10, 10, "compiled"),
        CheckResult("correctness tiny 1x1x1", "correctness", "skipped", 0, 90, skipped),
    ]
    report = Report("ex1", "Non-square", "kernel.cu", 1, DeviceInfo("cpu", "-"), checks)
    assert "PASSED (what ran without a GPU)  10/100 points (90 need a GPU)" in _shown(report)
    assert "**PASSED (what ran without a GPU)**, 10/100 points (90 need a GPU)." in (
        render_markdown(report)
    )
    whole = Report("ex1", "Non-square", "kernel.cu", 1, DeviceInfo("cpu", "-"), checks[:1])
    assert "PASSED  10/10 points" in _shown(whole)

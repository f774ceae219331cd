"""Running ncu: a stand-in (tests/data/fake_ncu.py) replays the H200's recorded output, or fails
the ways ncu does; the grader's one-line summaries are what the student reads."""

from __future__ import annotations

import pytest

from grader.course import load_course
from grader.profiling.ncu import (
    ProfileUnavailable,
    ncu_command,
    plan_kernels,
    run_profile,
    summarise_failure,
)
from grader.source import read_source
from tests.conftest import ROOT, run_grader

FAKE = str(ROOT / "tests/data/fake_ncu.py")
EX3 = load_course(ROOT).find("ex3")


def _kernels(student: bool = True):  # type: ignore[no-untyped-def]
    source = read_source(EX3.solution) if student else None
    return plan_kernels(EX3.spec, ROOT, source)


def test_the_plan_is_the_reference_kernels_then_the_students() -> None:
    kernels = _kernels()
    assert [(k.label, k.name) for k in kernels] == [
        ("naive", "matmul_naive"),
        ("tiled", "matmul_tiled"),
        ("yours", "matmul_tiled"),
    ]
    assert kernels[1].defines == {"TILE_SIZE": 16} and kernels[0].block == (16, 16)


def test_ncu_keeps_the_gpus_clocks_and_filters_to_the_plans_kernels(tmp_path) -> None:  # type: ignore[no-untyped-def]
    command = ncu_command("ncu", _kernels(), tmp_path / "plan.json")
    assert command[command.index("--clock-control") + 1] == "none"
    assert (
        command[command.index("--kernel-name") + 1] == r"regex:^(matmul_naive|matmul_tiled)(\(.*)?$"
    )
    assert (
        "sm__throughput.avg.pct_of_peak_sustained_elapsed"
        in command[command.index("--metrics") + 1]
    )
    assert command[-3:] == ["-m", "grader.profiling.target", str(tmp_path / "plan.json")]


def test_figures_come_back_labelled_in_launch_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_NCU", FAKE)
    profiles = run_profile(_kernels(), 1024, 1, timeout_s=30)
    assert not isinstance(profiles, ProfileUnavailable), profiles
    assert [p.label for p in profiles] == ["naive", "tiled", "yours"]
    assert profiles[0].values["l1_global_load_mb"] == pytest.approx(4294.967296)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("perm", "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM)"),
        ("target", 'the profiled program failed: yours: kernel.cu:3: error: expected a ";"'),
        ("sleep", "ncu did not finish within 1 s and was stopped"),
    ],
)
def test_ncus_failures_are_one_line(
    monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    monkeypatch.setenv("GRADER_NCU", FAKE)
    monkeypatch.setenv("FAKE_NCU_MODE", mode)
    outcome = run_profile(_kernels(), 1024, 1, timeout_s=1)
    assert isinstance(outcome, ProfileUnavailable)
    assert outcome.reason.startswith(expected) and "\n" not in outcome.reason


def test_without_ncu_the_message_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_NCU", "/nonexistent/ncu")
    outcome = run_profile(_kernels(), 1024, 1, timeout_s=5)
    assert isinstance(outcome, ProfileUnavailable)
    assert "ncu) was not found" in outcome.reason and "GRADER_NCU" in outcome.reason


def test_other_ncu_errors_show_the_first_and_count_the_rest() -> None:
    text = "==PROF== x\n==ERROR== Failed to profile kernel\n==ERROR== second\n"
    assert summarise_failure(text, 1) == "ncu failed: Failed to profile kernel (and 1 more)"
    assert summarise_failure("", 9) == "ncu exited with code 9 and printed no metrics"


def test_grader_profile_prints_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_NCU", FAKE)
    done = run_grader(["profile", "ex3", "--file", str(EX3.solution)])
    assert done.returncode == 0, done.stderr
    assert "L1 global-load bytes (MB)" in done.stdout
    assert "4,295.0" in done.stdout and "8.00x" in done.stdout
    assert "yours" in done.stdout


def test_grader_profile_without_ncu_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_NCU", "/nonexistent/ncu")
    done = run_grader(["profile", "ex3"])
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "ncu) was not found" in done.stderr


def test_grader_profile_on_an_exercise_without_a_profile_says_which_have_one() -> None:
    done = run_grader(["profile", "ex1"])
    assert done.returncode == 2
    assert "ex1 has no profile section" in done.stderr and "with one: ex3" in done.stderr

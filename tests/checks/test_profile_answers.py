"""ex3's answers graded against the H200's recorded ncu run (tests/data/ncu-h200-n1024.csv): the
logic the GPU run uses, tested without a GPU."""

from __future__ import annotations

import pytest

from grader.checks.answers_load import load_answers
from grader.checks.profile_answers import (
    ProfileEvidence,
    ProfilingAnswers,
    grade_profiling,
    profiling_question,
)
from grader.profiling.metrics import parse_ncu_csv
from grader.results import CheckResult
from grader.spec import load_spec
from tests.conftest import ROOT

SPEC = load_spec(ROOT / "exercises/ex3-profiling/spec.yaml")
SOLUTION = (ROOT / "solutions/ex3-profiling/answers.yaml").read_text()
H200_L2 = 62_914_560
RECORDED = {
    p.label: p.values
    for p in parse_ncu_csv((ROOT / "tests/data/ncu-h200-n1024.csv").read_text(), ["naive", "tiled"])
}
H200 = ProfileEvidence(RECORDED, "", 1024, H200_L2)


def _grade(text: str, evidence: ProfileEvidence = H200) -> dict[str, CheckResult]:
    assert SPEC.answers is not None
    answers = load_answers(text, "answers.yaml", ProfilingAnswers, profiling_question)
    return {r.name: r for r in grade_profiling(answers, evidence, SPEC.answers)}


def _variant(name: str) -> str:
    return (ROOT / "solutions/ex3-profiling/wrong" / name).read_text()


def test_the_solutions_answers_pass_against_the_recorded_run() -> None:
    results = _grade(SOLUTION)
    explanation = results.pop("answers explanation")
    assert {r.status for r in results.values()} == {"passed"}, results
    assert sum(r.score for r in results.values()) == pytest.approx(70, abs=0.01)
    assert explanation.status == "pending" and explanation.max_score == 10
    assert "12.6 MB" in results["answers DRAM and L2"].message
    assert "62.9 MB" in results["answers DRAM and L2"].message


def test_figures_off_by_two_fail_naming_each_measured_value() -> None:
    result = _grade(_variant("answers_tiled_figures_2x.yaml"))["answers tiled figures"]
    assert result.status == "failed"
    assert "l1_global_load_mb yours 1073.8, measured 536.9 MB" in result.message
    assert "sm_throughput_pct" not in result.message  # the right figures are not blamed


def test_the_tutorials_dram_claim_fails_with_the_measured_ratios() -> None:
    result = _grade(_variant("answers_tutorial_claims.yaml"))["answers traffic reduction"]
    assert result.status == "failed"
    assert "largest cut measured is at l1 (dram 1.00x, l2 1.13x, l1 8.00x)" in result.message


def test_the_right_level_with_a_wrong_factor_fails() -> None:
    result = _grade(SOLUTION.replace("factor: 8.0", "factor: 16.0"))["answers traffic reduction"]
    assert result.status == "failed"
    assert (
        "l1 is right, but the factor 16 is not within 25% of the measured 8.00x" in result.message
    )


def test_the_naive_kernel_is_not_closer_to_the_roofline() -> None:
    result = _grade(_variant("answers_roofline_naive.yaml"))["answers roofline"]
    assert result.status == "failed"
    assert result.message == "yours naive; SM throughput naive 60.3%, tiled 69.5% of peak"


def test_the_dram_reason_is_graded_against_the_l2_size() -> None:
    wrong = _grade(_variant("answers_dram_reason.yaml"))["answers DRAM and L2"]
    assert wrong.status == "failed"
    # a GPU whose L2 cannot hold the matrices (6 MB, like the tutorial's RTX 3090): the premise
    # does not hold, and only does_not_apply is right
    small = ProfileEvidence(RECORDED, "", 1024, 6 * 1024 * 1024)
    assert _grade(SOLUTION, small)["answers DRAM and L2"].status == "failed"
    fixed = SOLUTION.replace("matrices_fit_in_l2", "does_not_apply")
    assert _grade(fixed, small)["answers DRAM and L2"].status == "passed"


def test_without_a_profile_the_measured_questions_are_skipped_and_the_rest_graded() -> None:
    reason = "not measured: Nsight Compute (ncu) was not found: install it"
    results = _grade(SOLUTION, ProfileEvidence(None, reason, 1024, H200_L2))
    measured = ["naive figures", "tiled figures", "traffic reduction", "roofline"]
    assert all(results[f"answers {name}"].status == "skipped" for name in measured)
    assert all(results[f"answers {name}"].message == reason for name in measured)
    assert results["answers DRAM and L2"].status == "passed"


def test_on_the_cpu_backend_every_question_is_skipped_with_a_reason() -> None:
    results = _grade(SOLUTION, ProfileEvidence(None, "needs a GPU and Nsight Compute", 1024, None))
    graded = [r for r in results.values() if r.name != "answers explanation"]
    assert {r.status for r in graded} == {"skipped"}
    assert results["answers explanation"].status == "pending"  # a person reads it on any machine
    assert results["answers DRAM and L2"].message.startswith("needs a GPU")


def test_unanswered_questions_fail_even_without_measurements() -> None:
    template = (ROOT / "exercises/ex3-profiling/answers.yaml").read_text()
    results = _grade(template, ProfileEvidence(None, "no GPU", 1024, None))
    assert results["answers naive figures"].status == "failed"
    assert results["answers naive figures"].message.startswith(
        "naive: give duration_us, dram_read_mb"
    )
    assert results["answers roofline"].message == "closer_to_roofline: give naive or tiled"


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        (
            "naive: {dram_read_mb: '8.4'}\n",
            "naive figures",
            "answers.yaml:1:9: naive.dram_read_mb:",
        ),
        ("closer_to_roofline: cublas\n", "roofline", "answers.yaml:1:1: closer_to_roofline:"),
        (
            "fewer_bytes: {level: l3}\n",
            "traffic reduction",
            "answers.yaml:1:15: fewer_bytes.level:",
        ),
        ("tiled: {bandwidth: 3}\n", "tiled figures", "answers.yaml:1:9: tiled.bandwidth:"),
        ("naive: [1, 2\n", "naive figures", "answers.yaml:"),
    ],
)
def test_bad_answers_get_one_line_naming_the_key_under_their_own_question(
    text: str, question: str, expected: str
) -> None:
    results = _grade(text)
    message = results[f"answers {question}"].message
    assert message.startswith(expected), message
    assert "\n" not in message
    assert all(r.status == "failed" for r in results.values() if r.max_score > 0)


@pytest.mark.parametrize("giveaway", ["fit in l2", "fits in l2", "8.4 mb", "shows in l1"])
def test_the_exercise_folder_does_not_give_the_choice_answers_away(giveaway: str) -> None:
    # exercises/ ships to students (release, Gradescope package); the reasons the choice questions
    # ask for belong in solutions/ only.
    for path in (ROOT / "exercises/ex3-profiling").iterdir():
        assert giveaway not in path.read_text().lower(), f"{path.name} says {giveaway!r}"


def test_a_choice_written_in_capitals_is_that_choice() -> None:
    # the twelfth walk: `level: L1` and `closer_to_roofline: Tiled` scored 0
    text = SOLUTION.replace("level: l1", "level: L1").replace(
        "closer_to_roofline: tiled", "closer_to_roofline: Tiled"
    )
    text = text.replace(
        "dram_similar_because: matrices_fit_in_l2", "dram_similar_because: Matrices_Fit_In_L2"
    )
    results = _grade(text)
    results.pop("answers explanation")
    assert {r.status for r in results.values()} == {"passed"}, results

"""ex2's answers graded against recorded measurements (the H200's, ../shared/GPU.md): the same
logic the GPU run uses, tested without a GPU."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.checks.answers import (
    SweepEvidence,
    TileSweepAnswers,
    grade_tile_sweep,
    tile_sweep_question,
)
from grader.checks.answers_load import load_answers
from grader.checks.sweep import probe
from grader.results import CheckResult
from grader.source import read_source
from grader.spec import load_spec
from tests.conftest import ROOT

SPEC = load_spec(ROOT / "exercises/ex2-tile-sweep/spec.yaml")
ANSWERS = ROOT / "solutions/ex2-tile-sweep/answers.yaml"
FLOPS = 2.0 * 2048**3
# GFLOP/s measured on the H200 at 2048^3: tile 8: 5,050; 16: 8,014; 32: 9,042
H200 = SweepEvidence(
    {v: FLOPS / (g * 1e6) for v, g in ((8, 5050.0), (16, 8014.0), (32, 9042.0))},
    FLOPS,
    "threads_per_block",
    "TILE_SIZE=64: 4096 threads per block, over the limit of 1024",
)


def _grade(text: str, evidence: SweepEvidence = H200) -> dict[str, CheckResult]:
    assert SPEC.answers is not None and SPEC.sweep is not None
    answers = load_answers(text, "answers.yaml", TileSweepAnswers, tile_sweep_question)
    results = grade_tile_sweep(answers, evidence, SPEC.answers, SPEC.sweep.values)
    return {r.name: r for r in results}


def _variant(name: str) -> str:
    return (ROOT / "solutions/ex2-tile-sweep/wrong" / name).read_text()


def _questions_pass(results: dict[str, CheckResult]) -> None:
    """Every graded question passed; the explanation waits for a person, worth its points."""
    explanation = results.pop("answers explanation")
    assert {r.status for r in results.values()} == {"passed"}, results
    assert explanation.status == "pending" and explanation.score == 0
    assert SPEC.answers is not None and SPEC.answers.review is not None
    assert explanation.max_score == SPEC.answers.review.points


def test_the_solutions_answers_pass_against_the_h200s_measurements() -> None:
    results = _grade(ANSWERS.read_text())
    assert sum(r.score for r in results.values()) == pytest.approx(30, abs=0.01)
    explanation = results["answers explanation"]
    assert explanation.answer.startswith("Larger tiles reuse each value loaded from global memory")
    assert explanation.message.startswith("pending: your instructor grades it by hand (10 points)")
    _questions_pass(results)


def test_figures_off_by_two_fail_naming_the_measured_value() -> None:
    result = _grade(_variant("answers_figures_2x.yaml"))["answers TILE_SIZE=32 figures"]
    assert result.status == "failed"
    assert "yours 3.8 ms / 4,521 GFLOP/s; measured here 1.900 ms / 9,042 GFLOP/s" in result.message


def test_the_tutorials_figures_fail() -> None:
    results = _grade(_variant("answers_tutorial_figures.yaml"))
    assert all(results[f"answers TILE_SIZE={v} figures"].status == "failed" for v in (8, 16, 32))


def test_a_wrong_fastest_tile_size_fails_with_the_measurements() -> None:
    result = _grade(_variant("answers_wrong_fastest.yaml"))["answers fastest tile size"]
    assert result.status == "failed"
    assert result.message.startswith("yours 8; fastest here 32 (8: 3.402 ms, 16: 2.144 ms")


def test_tile_sizes_within_noise_of_each_other_are_both_fastest() -> None:
    tie = SweepEvidence({8: 3.4, 16: 1.94, 32: 1.90}, FLOPS, None, "")
    text = ANSWERS.read_text().replace("fastest_tile_size: 32", "fastest_tile_size: 16")
    assert _grade(text, tie)["answers fastest tile size"].status == "passed"


def test_the_wrong_limit_fails_with_the_grader_s_evidence() -> None:
    result = _grade(_variant("answers_wrong_limit.yaml"))["answers limit of 64"]
    assert result.status == "failed"
    assert "4096 threads per block, over the limit of 1024" in result.message


def test_without_timing_the_measured_questions_are_skipped_and_the_limit_still_graded() -> None:
    no_gpu = SweepEvidence(None, FLOPS, "threads_per_block", "by the limits")
    results = _grade(ANSWERS.read_text(), no_gpu)
    assert results["answers fastest tile size"].status == "skipped"
    assert results["answers fastest tile size"].message.startswith("needs a GPU")
    assert results["answers limit of 64"].status == "passed"


def test_the_probe_finds_threads_per_block_for_64() -> None:
    limit, detail, _ = probe(
        SPEC, read_source(ROOT / "solutions/ex2-tile-sweep/kernel.cu"), "sm_90"
    )
    assert limit == "threads_per_block"
    assert "4096 threads per block, over the limit of 1024" in detail


def _at(text: str, needle: str) -> str:
    """`line:column` of `needle` in `text` (1-based)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return f"{number}:{line.index(needle) + 1}"
    raise AssertionError(needle)


@pytest.mark.parametrize(
    ("edit", "question", "key", "message"),
    [
        (
            ("gflops: 5050.0", 'gflops: "5050"'),
            "answers TILE_SIZE=8 figures",
            "gflops",
            "measurements.8.gflops: Input should be a valid number (got '5050')",
        ),
        (
            ("limit_64: threads_per_block", "limit_64: warps"),
            "answers limit of 64",
            "limit_64",
            "limit_64: Input should be 'threads_per_block'",
        ),
        (
            ("fastest_tile_size: 32", 'fastest_tile_size: "32"'),
            "answers fastest tile size",
            "fastest_tile_size",
            "fastest_tile_size: Input should be a valid integer (got '32')",
        ),
        (  # the eleventh walk: a quoted tile size cost every tile size's figures
            ("16: {time_ms", '"16": {time_ms'),
            "answers TILE_SIZE=16 figures",
            '"16"',
            "measurements.16.[key]: Input should be a valid integer (got '16')",
        ),
        (  # the eleventh walk: .inf was taken as a figure
            ("gflops: 5050.0", "gflops: .inf"),
            "answers TILE_SIZE=8 figures",
            "gflops",
            "measurements.8.gflops: Input should be a finite number",
        ),
        (  # the eleventh walk: a key given twice cost every question and the explanation
            ("limit_64: threads_per_block", "limit_64: threads_per_block\nlimit_64: warps"),
            "answers limit of 64",
            "limit_64: warps",
            "key 'limit_64' given twice (first on line 9): keep one",
        ),
    ],
)
def test_a_bad_answer_costs_its_own_question_once_with_line_and_column(
    edit: tuple[str, str], question: str, key: str, message: str
) -> None:
    text = ANSWERS.read_text()
    assert edit[0] in text
    edited = text.replace(*edit)
    results = _grade(edited)
    bad = results.pop(question)
    assert bad.status == "failed" and bad.score == 0
    assert bad.message.startswith(f"answers.yaml:{_at(edited, key)}: {message}"), bad.message
    assert all(message not in r.message for r in results.values())  # said once
    _questions_pass(results)  # every other answer is graded


def test_a_key_no_question_knows_is_named_once_and_its_question_is_unanswered() -> None:
    text = ANSWERS.read_text().replace("fastest_tile_size: 32", "fastest: 32")
    results = _grade(text)
    assert results["answers fastest tile size"].message == "fastest_tile_size: not answered"
    explanation = results["answers explanation"]
    assert (
        explanation.status == "pending" and explanation.score == 0
    )  # a stray key costs it nothing
    where = f"answers.yaml:{_at(text, 'fastest:')}"
    assert explanation.message.startswith(f"{where}: fastest: unknown key (allowed here: ")
    others = [r for n, r in results.items() if "fastest" not in n and "explanation" not in n]
    assert {r.status for r in others} == {"passed"}


def test_a_file_that_is_not_yaml_fails_every_question_with_one_line() -> None:
    results = _grade(ANSWERS.read_text().replace("gpu: NVIDIA H200", "gpu: [unclosed"))
    graded = [r for r in results.values() if r.name != "answers explanation"]
    assert all(r.status == "failed" for r in graded)
    assert graded[0].message.startswith("answers.yaml:") and "not valid YAML" in graded[0].message
    assert "\n" not in graded[0].message


def test_a_missing_answers_file_says_what_to_do() -> None:
    assert SPEC.answers is not None and SPEC.sweep is not None
    out = grade_tile_sweep(
        load_answers(None, "answers.yaml", TileSweepAnswers, tile_sweep_question),
        H200,
        SPEC.answers,
        SPEC.sweep.values,
    )
    assert "answers.yaml not found next to the kernel" in out[0].message


def test_an_alias_bomb_is_refused_in_one_line_at_once() -> None:
    # nine levels of nine aliases: 9^9 values for anything that walks the document
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    lines.append("fastest_tile_size: *l9")
    result = load_answers("\n".join(lines), "answers.yaml", TileSweepAnswers, tile_sweep_question)
    assert isinstance(result, str)
    assert result.startswith("answers.yaml:") and "aliases" in result and "\n" not in result


def test_without_an_answers_file_no_answer_passes_and_the_points_are_named() -> None:
    from grader.checks.base import Context
    from grader.checks.kinds.answers import _missing
    from grader.job import Job
    from grader.results import DeviceInfo
    from grader.source import KernelSource

    assert SPEC.answers is not None and SPEC.sweep is not None
    job = Job(spec={}, source_text="", display_name="kernel.cu", seed=1, answers_text=None)
    source = KernelSource("", "kernel.cu")
    why = _missing(Context(job, SPEC, source, None, DeviceInfo("none", "none"), print))
    assert why.startswith(f"no answers.yaml next to the kernel: 0 of {SPEC.answers.points} points")
    out = grade_tile_sweep(why, H200, SPEC.answers, SPEC.sweep.values)
    assert [r.status for r in out if r.name != "answers explanation"] == ["failed"] * (len(out) - 1)
    explanation = next(r for r in out if r.name == "answers explanation")
    assert explanation.status == "failed" and explanation.message == f"not graded: {why}"
    assert explanation.max_score == 10  # no answer to review: lost, not pending


def _small_course(root: Path) -> Path:
    """The course with one small correctness case per exercise: the answers are what is tested."""
    root.mkdir()
    shutil.copy(ROOT / "course.yaml", root / "course.yaml")
    shutil.copytree(ROOT / "exercises", root / "exercises")
    shutil.copytree(ROOT / "reference", root / "reference")
    for spec in (root / "exercises").glob("*/spec.yaml"):
        lines = spec.read_text().splitlines(keepends=True)
        kept = [line for line in lines if not line.lstrip().startswith("- {shape:")]
        at = next(i for i, line in enumerate(kept) if line.startswith("  cases:")) + 1
        spec.write_text("".join([*kept[:at], "    - {shape: 17x33x65}\n", *kept[at:]]))
    return root


@pytest.mark.slow
@pytest.mark.parametrize(("exercise", "points"), [("ex2", 30), ("ex3", 70)])
def test_a_kernel_graded_without_answers_next_to_it_passes_no_answer(
    tmp_path: Path, exercise: str, points: int
) -> None:
    from grader.backends.cpu import CpuUnavailableError, check_toolchain
    from grader.course import load_course
    from grader.grading import default_answers, grade

    try:
        check_toolchain()
    except CpuUnavailableError as exc:
        pytest.skip(f"CPU backend unavailable: {exc}")
    course = load_course(_small_course(tmp_path / "course"))
    found = course.find(exercise)
    kernel = tmp_path / "alone" / "kernel.cu"
    kernel.parent.mkdir()
    shutil.copy(ROOT / "solutions" / found.dir_name / "kernel.cu", kernel)
    report = grade(
        found, read_source(kernel), seed=3, backend="cpu", answers=default_answers(found, kernel)
    )
    answers = [c for c in report.checks if c.kind == "answers"]
    assert answers and not any(c.status == "passed" for c in answers)
    why = f"no answers.yaml next to the kernel: 0 of {points} points"
    assert all(why in c.message for c in answers)
    assert sum(c.score for c in answers) == 0
    assert all(c.status == "passed" for c in report.checks if c.kind == "correctness")


def test_two_bad_values_in_each_of_two_tiles_cost_those_two_questions_only() -> None:
    # figures written with their units, in two tiles: a likely slip, found by a red-team pass
    text = ANSWERS.read_text()
    for tile in ("16", "32"):
        line = next(x for x in text.splitlines() if x.strip().startswith(f"{tile}:"))
        indent = line[: len(line) - len(line.lstrip())]
        text = text.replace(line, f'{indent}{tile}: {{time_ms: "1.0 ms", gflops: "9 GFLOP/s"}}')
    results = _grade(text)
    for tile in ("16", "32"):
        bad = results.pop(f"answers TILE_SIZE={tile} figures")
        assert bad.status == "failed"
        assert f"measurements.{tile}.time_ms" in bad.message
        assert f"measurements.{tile}.gflops" in bad.message
    _questions_pass(results)


def test_a_key_of_an_odd_type_costs_no_answer() -> None:
    results = _grade(ANSWERS.read_text() + "null: 3\n")
    assert "None" in results["answers explanation"].message  # shown, and costs no answer
    _questions_pass(results)


def test_measurements_not_a_mapping_fail_every_tile_sizes_figures_not_the_explanation() -> None:
    # found by the eighth walk: `measurements: 12` was reported on the explanation's entry
    text = ANSWERS.read_text()
    block = text[text.index("measurements:") : text.index("fastest_tile_size")]
    results = _grade(text.replace(block, "measurements: 12\n"))
    figures = [r for name, r in results.items() if name.endswith(" figures")]
    assert len(figures) == 3 and all(r.status == "failed" for r in figures)
    assert all(r.message.startswith("answers.yaml:4:") for r in figures), figures[0].message
    explanation = results["answers explanation"]
    assert explanation.status == "pending" and "measurements" not in explanation.message
    assert results["answers fastest tile size"].status == "passed"


def test_an_unknown_key_inside_a_measurement_names_the_keys_allowed_there() -> None:
    # the ninth walk: "unknown key (allowed here: ?)"
    text = ANSWERS.read_text().replace("gflops: 9042.0", "gflop: 9042.0")
    figures = _grade(text)["answers TILE_SIZE=32 figures"]
    assert figures.status == "failed"
    assert figures.message.startswith(
        "answers.yaml:7:24: measurements.32.gflop: unknown key (allowed here: gflops, time_ms)"
    ), figures.message


def test_a_figure_in_exponent_form_is_a_number() -> None:
    # the ninth walk: `gflops: 5e3` (a number in YAML 1.2) was "not a valid number"
    text = (
        ANSWERS.read_text()
        .replace("gflops: 5050.0", "gflops: 5.05e3")
        .replace("gflops: 8014.0", "gflops: 8014E0")
    )
    results = _grade(text)
    assert results["answers TILE_SIZE=8 figures"].status == "passed"
    assert results["answers TILE_SIZE=16 figures"].status == "passed"


def test_a_misspelled_key_is_named_on_the_question_it_is_close_to() -> None:
    # the ninth walk: `fastest_tilesize: 32` was named under the explanation, and its question
    # said only "not answered"
    text = ANSWERS.read_text().replace("fastest_tile_size: 32", "fastest_tilesize: 32")
    results = _grade(text)
    fastest = results["answers fastest tile size"]
    where = f"answers.yaml:{_at(text, 'fastest_tilesize:')}"
    assert fastest.status == "failed"
    assert fastest.message.startswith(f"{where}: fastest_tilesize: unknown key"), fastest.message
    assert "fastest_tilesize" not in results["answers explanation"].message


@pytest.mark.parametrize("figure", ["{time_ms: 3.402, gflops: 5,050}", "\n    gflops: 5,050"])
def test_a_figure_written_with_a_thousands_comma_is_told_so(figure: str) -> None:
    # in braces YAML reads `5,050` as 5 and a key 050 (octal): the message named a key 40
    edited = ANSWERS.read_text().replace("{time_ms: 3.402, gflops: 5050.0}", figure)
    bad = _grade(edited)["answers TILE_SIZE=8 figures"]
    assert bad.status == "failed"
    assert bad.message.endswith("YAML reads 8,014 as two values: write 8014)"), bad.message


def test_an_explanation_that_is_not_text_is_failed_with_that_alone() -> None:
    # it also said "none given", as if the key were missing
    text = ANSWERS.read_text()
    edited = text[: text.index("explanation: |")] + "explanation: 42\n"
    results = _grade(edited)
    explanation = results.pop("answers explanation")
    where = f"answers.yaml:{_at(edited, 'explanation:')}"
    assert explanation.status == "failed" and explanation.score == 0
    assert explanation.message.startswith(f"{where}: explanation: Input should be a valid string")
    assert "none given" not in explanation.message


@pytest.mark.parametrize("text", ["", "\n# only a comment\n"])
def test_an_empty_answers_file_is_called_empty(text: str) -> None:
    # the twelfth walk: it said "expected a mapping of keys at the top level"
    failed = _grade(text)["answers limit of 64"]
    assert failed.status == "failed"
    assert failed.message == "answers.yaml is empty: copy the exercise's template and fill it in"

"""The answers check: graded against the evidence the checks before it left; without an answers
file every question is failed, naming the file and the points, and the explanation is not
graded."""

from __future__ import annotations

from grader.checks.kinds.answers import AnswersCheck
from grader.checks.kinds.profile import ProfileFigures
from grader.checks.kinds.sweep import SweepTimes
from tests.checks.kinds.fakes import NoTimingBackend, context, sent, spec_of
from tests.conftest import ROOT

EX2, EX3 = spec_of("ex2-tile-sweep"), spec_of("ex3-profiling")


def test_without_an_answers_file_each_question_fails_naming_the_file() -> None:
    made, events = context(EX2, backend=NoTimingBackend())
    made.evidence["sweep"] = SweepTimes(None, "needs a GPU")
    AnswersCheck().run(made)
    results = sent(events)
    assert [r.name for r in results] == [p.name for p in AnswersCheck().plan(EX2)]
    graded = [r for r in results if r.name != "answers explanation"]
    assert {r.status for r in graded} == {"failed"}
    assert graded[0].message.startswith("no answers.yaml next to the kernel: 0 of 30 points")
    assert results[-1].status == "failed" and results[-1].max_score == 10  # nothing to review


def test_the_solution_s_answers_pass_what_can_be_judged_without_a_gpu() -> None:
    text = (ROOT / "solutions/ex2-tile-sweep/answers.yaml").read_text()
    made, events = context(EX2, backend=NoTimingBackend(), answers_text=text)
    made.evidence["sweep"] = SweepTimes(None, "needs a GPU: measured there")
    AnswersCheck().run(made)
    by_name = {r.name: r for r in sent(events)}
    assert by_name["answers limit of 64"].status == "passed"  # by the limits of every CUDA GPU
    assert by_name["answers TILE_SIZE=8 figures"].status == "skipped"
    assert by_name["answers TILE_SIZE=8 figures"].message.startswith("needs a GPU")


def test_profiling_answers_without_figures_are_not_graded_on_them() -> None:
    text = (ROOT / "solutions/ex3-profiling/answers.yaml").read_text()
    made, events = context(EX3, backend=NoTimingBackend(), answers_text=text)
    made.evidence["profile"] = ProfileFigures(None, "needs a GPU and Nsight Compute (ncu)")
    AnswersCheck().run(made)
    by_name = {r.name: r for r in sent(events)}
    assert by_name["answers naive figures"].status == "skipped"
    assert "needs a GPU and Nsight Compute" in by_name["answers naive figures"].message


def test_an_explanation_left_as_the_templates_question_is_no_answer_to_review() -> None:
    template = (ROOT / "exercises/ex3-profiling/answers.yaml").read_text()
    made, events = context(EX3, backend=NoTimingBackend(), answers_text=template)
    made.evidence["profile"] = ProfileFigures(None, "needs a GPU and Nsight Compute")
    AnswersCheck().run(made)
    explanation = sent(events)[-1]
    assert explanation.status == "failed" and explanation.max_score == 10
    assert explanation.message == "not answered: the explanation is still the template's question"
    # reflowed, the same question is still no answer; any word of the student's own is one
    reflowed = template.replace("\n  in DRAM", " in DRAM")
    for text, status in (
        (reflowed, "failed"),
        (template.replace("What do", "Here: what do"), "pending"),
    ):
        made, events = context(EX3, backend=NoTimingBackend(), answers_text=text)
        made.evidence["profile"] = ProfileFigures(None, "needs a GPU and Nsight Compute")
        AnswersCheck().run(made)
        assert sent(events)[-1].status == status, text


def test_each_answers_template_asks_the_question_its_spec_names() -> None:
    import yaml

    from grader.course import load_course

    for exercise in load_course(ROOT).exercises:
        answers = exercise.spec.answers
        if answers is None or answers.review is None:
            continue
        template = yaml.safe_load((exercise.directory / answers.file).read_text())
        assert " ".join(template["explanation"].split()) == " ".join(
            answers.review.question.split()
        )

"""The free-text explanation of an answers file: graded by a person with the exercise's
rubric (`grader review`) where the spec has one, pending until then; kept for the instructor,
worth nothing, where it has none. An explanation left as the template's question is no answer."""

from __future__ import annotations

from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import ReviewSpec
from grader.text_bounds import reflowed

EXPLANATION = "answers explanation"


def unanswered_explanation(why: str, review: ReviewSpec | None = None) -> CheckResult:
    """The explanation's entry when the answers could not be read: nothing to grade or review,
    never passed (worth the review's points where a person grades it: lost, not pending)."""
    worth = review.points if review else 0.0
    status = CheckStatus.FAILED if review else CheckStatus.SKIPPED
    return CheckResult(EXPLANATION, CheckKind.ANSWERS, status, 0.0, worth, f"not graded: {why}")


def explanation_result(text: str, review: ReviewSpec | None = None) -> CheckResult:
    """The free-text explanation: pending a person's review where the spec has a rubric (its
    points neither given nor lost until `grader review`), else kept for the instructor."""
    text = text.strip()
    if review is None:
        message = f"kept for your instructor, not auto-graded: {text}" if text else "none given"
        return CheckResult(EXPLANATION, CheckKind.ANSWERS, CheckStatus.PASSED, 0.0, 0.0, message)
    if not text:
        return CheckResult(
            EXPLANATION,
            CheckKind.ANSWERS,
            CheckStatus.FAILED,
            0.0,
            review.points,
            f"none given: the explanation is worth {review.points} points, graded by hand",
        )
    return CheckResult(
        EXPLANATION,
        CheckKind.ANSWERS,
        CheckStatus.PENDING,
        0.0,
        review.points,
        f"pending: your instructor grades it by hand ({review.points} points): {reflowed(text)}",
        answer=text,
    )


def is_template_question(text: str, review: ReviewSpec | None) -> bool:
    """Whether `text` is the question the template asks (however reflowed): no answer."""
    return review is not None and " ".join(text.split()) == " ".join(review.question.split())


def unless_template(results: list[CheckResult], review: ReviewSpec | None) -> list[CheckResult]:
    """The explanation failed where it is still the template's question (nothing to review)."""
    out = []
    for result in results:
        if result.name == EXPLANATION and is_template_question(result.answer, review):
            message = "not answered: the explanation is still the template's question"
            worth = result.max_score
            result = CheckResult(
                EXPLANATION, CheckKind.ANSWERS, CheckStatus.FAILED, 0.0, worth, message
            )
        out.append(result)
    return out

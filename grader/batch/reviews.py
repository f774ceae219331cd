"""A person's review of a written answer (`grader review`): the rubric items ticked, the points
they add up to and a comment, kept in the batch's results.sqlite beside the gradings. A review
belongs to the exact text reviewed: a resubmission that changes the answer is pending again.

Applied to a stored report, a review turns its pending explanation into a graded one, so that
every reader of the store (the batch's gradebook and feedback, `grader gradebook`, `grader
feedback`) shows the same points; an answer nobody reviewed stays pending, never 0."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from grader.checks.explanation import EXPLANATION
from grader.results import REVIEWED, CheckResult, CheckStatus, Report
from grader.spec import Rubric
from grader.text_bounds import reflowed

REVIEWS_SCHEMA = """
CREATE TABLE IF NOT EXISTS reviews (
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    answer_sha256 TEXT NOT NULL,
    ticked TEXT NOT NULL,
    rubric TEXT NOT NULL,
    points REAL NOT NULL,
    max_points REAL NOT NULL,
    comment TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    reviewed_at TEXT NOT NULL,
    PRIMARY KEY (student, exercise, answer_sha256)
);
"""
"""`ticked`: the JSON list of the rubric ids given; `rubric`: the JSON list of the rubric's
items (id, points, says) as they were when reviewed, so a review reads the same later."""


def answer_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Review:
    student: str
    exercise: str
    answer_sha256: str
    ticked: tuple[str, ...]
    rubric: tuple[tuple[str, float, str], ...]
    """(id, points, says) of every item, ticked or not."""
    comment: str
    reviewer: str
    reviewed_at: str

    @property
    def points(self) -> float:
        return round(sum(p for i, p, _ in self.rubric if i in self.ticked), 2)

    @property
    def max_points(self) -> float:
        return round(sum(p for _, p, _ in self.rubric), 2)

    def row(self) -> tuple[Any, ...]:
        return (
            self.student,
            self.exercise,
            self.answer_sha256,
            json.dumps(list(self.ticked)),
            json.dumps([list(item) for item in self.rubric]),
            self.points,
            self.max_points,
            self.comment,
            self.reviewer,
            self.reviewed_at,
        )

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Review:
        student, exercise, digest, ticked, rubric, _, _, comment, reviewer, at = row
        items = tuple((str(i), float(p), str(s)) for i, p, s in json.loads(rubric))
        return cls(
            student, exercise, digest, tuple(json.loads(ticked)), items, comment, reviewer, at
        )


def rubric_of(rubric: Rubric) -> tuple[tuple[str, float, str], ...]:
    return tuple((item.id, item.points, " ".join(item.says.split())) for item in rubric.items)


@dataclass(frozen=True)
class Written:
    """A written answer that a person reviews: whose, for which exercise, its text."""

    student: str
    exercise: str
    text: str

    @property
    def digest(self) -> str:
        return answer_hash(self.text)


def written_answer(student: str, report: dict[str, Any]) -> Written | None:
    """The answer a stored report holds for review (its explanation, pending); None if none."""
    for check in report.get("checks", []):
        if check.get("name") == EXPLANATION and check.get("status") == "pending":
            return Written(student, str(report.get("exercise", "")), str(check.get("answer", "")))
    return None


def reviewed_message(review: Review) -> str:
    """What the student reads: each item earned, with its points and what it says; those not
    earned by name and points only (what a rubric item says is a model answer, and feedback may go
    out while others, with an extension, still work on theirs); and the comment."""
    lines = [f"reviewed: {review.points:g}/{review.max_points:g}"]
    missed = []
    for item, points, says in review.rubric:
        if item in review.ticked:
            lines.append(f"+ {points:g} {item}: {says}")
        else:
            missed.append(f"{item} ({points:g})")
    if missed:
        lines.append(f"not earned: {', '.join(missed)}")
    if review.comment:
        lines.append(f"comment: {review.comment}")
    return "\n".join(lines)


def apply_review(report: Report, review: Review) -> Report:
    """`report` with its pending explanation graded by `review`, if it is the text reviewed:
    passed with the points earned, failed where it earns none (every output reads this)."""
    checks: list[CheckResult] = []
    for check in report.checks:
        if (
            check.name == EXPLANATION
            and check.status == "pending"
            and answer_hash(check.answer) == review.answer_sha256
        ):
            message = f"{reviewed_message(review)}\nyour answer: {reflowed(check.answer)}"
            score = min(review.points, check.max_score)
            # as partial points are elsewhere: some points pass, none fail
            check = replace(
                check,
                status=CheckStatus.PASSED if score > 0 else CheckStatus.FAILED,
                score=score,
                message=message,
                symptoms=(*check.symptoms, REVIEWED),
            )
        checks.append(check)
    return replace(report, checks=checks)


def parse_ticks(typed: str, rubric: tuple[tuple[str, float, str], ...]) -> tuple[str, ...]:
    """The items a reviewer typed: numbers from 1 or ids, separated by spaces or commas; `all`
    or `none`. A ValueError saying which word is not an item."""
    words = typed.replace(",", " ").split()
    ids = [item for item, _, _ in rubric]
    if [w.lower() for w in words] == ["all"]:
        return tuple(ids)
    if [w.lower() for w in words] in (["none"], ["0"]):
        return ()
    chosen: list[str] = []
    for word in words:
        if word.isdigit() and 1 <= int(word) <= len(ids):
            item = ids[int(word) - 1]
        elif word in ids:
            item = word
        else:
            raise ValueError(
                f"{word!r} is not an item: give numbers 1-{len(ids)} or ids ({', '.join(ids)}), "
                "'all' or 'none'"
            )
        if item not in chosen:
            chosen.append(item)
    return tuple(i for i in ids if i in chosen)

"""grader validate: every solution passes; every stub and known-wrong variant fails, for the
reason it declares."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK
from grader.expectations import Verdict, judge_acceptance, judge_rejection, read_header
from grader.grading import grade, new_seed
from grader.source import read_source

_STYLE = {"ok": "green", "wrong": "bold red", "inconclusive": "yellow"}


@dataclass(frozen=True)
class Item:
    exercise: str
    role: str
    """`solution`, `stub` or `wrong`."""
    file: str
    verdict: Verdict
    detail: str


def validate_exercise(exercise: Exercise, seed: int) -> list[Item]:
    items: list[Item] = []
    root = exercise.directory.parent.parent
    solution = grade(exercise, read_source(exercise.solution), seed=seed)
    items.append(
        Item(
            exercise.id,
            "solution",
            str(exercise.solution.relative_to(root)),
            *judge_acceptance(solution),
        )
    )
    stub = grade(exercise, read_source(exercise.stub), seed=seed)
    items.append(
        Item(
            exercise.id, "stub", str(exercise.stub.relative_to(root)), *judge_rejection(stub, None)
        )
    )
    for variant in exercise.wrong_variants:
        header = read_header(variant)
        report = grade(exercise, read_source(variant), seed=seed)
        items.append(
            Item(
                exercise.id,
                "wrong",
                str(variant.relative_to(root)),
                *judge_rejection(report, header),
            )
        )
    return items


def run(course: Course, keys: Sequence[str], seed: int | None, as_json: bool) -> int:
    exercises = [course.find(k) for k in keys] if keys else list(course.exercises)
    seed = new_seed() if seed is None else seed
    console = Console(stderr=as_json)
    items: list[Item] = []
    for exercise in exercises:
        with console.status(f"validating {exercise.id}..."):
            items += validate_exercise(exercise, seed)
    counts = {v: sum(1 for i in items if i.verdict == v) for v in ("ok", "wrong", "inconclusive")}
    if as_json:
        print(
            json.dumps(
                {"seed": seed, "counts": counts, "items": [i.__dict__ for i in items]}, indent=2
            )
        )
    else:
        table = Table(title=f"grader validate (seed {seed})", show_lines=False, expand=True)
        for column in ("exercise", "role", "file", "verdict", "detail"):
            table.add_column(column, overflow="fold")
        for item in items:
            table.add_row(
                item.exercise,
                item.role,
                item.file,
                Text(item.verdict, style=_STYLE[item.verdict]),
                item.detail,
            )
        console.print(table)
        console.print(
            f"{counts['ok']} as expected, {counts['wrong']} not as expected, "
            f"{counts['inconclusive']} inconclusive"
        )
        if counts["inconclusive"]:
            console.print(
                "[yellow]inconclusive: runtime checks were skipped (no usable GPU)[/yellow]"
            )
    return EXIT_OK if counts["ok"] == len(items) else EXIT_CHECK_FAILED

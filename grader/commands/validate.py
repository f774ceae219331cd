"""grader validate: every solution passes; every stub and known-wrong variant fails, for the
reason it declares."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK
from grader.expectations import Verdict, judge_acceptance, judge_rejection, read_header
from grader.grading import default_answers, grade, new_seed
from grader.source import read_source

_STYLE = {"ok": "green", "wrong": "bold red", "inconclusive": "yellow", "needs a GPU": "cyan"}


@dataclass(frozen=True)
class Item:
    exercise: str
    role: str
    """`solution`, `stub` or `wrong`."""
    file: str
    verdict: Verdict
    detail: str


def _judge(exercise: Exercise, role: str, path: Path, seed: int, backend: str) -> Item:
    root = exercise.directory.parent.parent
    answers_variant = path.suffix == ".yaml"
    kernel = exercise.solution if answers_variant else path
    answers = path if answers_variant else default_answers(exercise, kernel)
    report = grade(exercise, read_source(kernel), seed=seed, backend=backend, answers=answers)
    if role == "solution":
        verdict, detail = judge_acceptance(report)
    else:
        verdict, detail = judge_rejection(report, read_header(path) if role == "wrong" else None)
    return Item(exercise.id, role, str(path.relative_to(root)), verdict, detail)


def validate_exercises(
    exercises: Sequence[Exercise], seed: int, backend: str, jobs: int
) -> list[Item]:
    """Grade every solution, stub and known-wrong variant, `jobs` at a time (each grading runs in
    its own child processes), and judge each against what it must do."""
    work: list[tuple[Exercise, str, Path]] = []
    for exercise in exercises:
        work.append((exercise, "solution", exercise.solution))
        work.append((exercise, "stub", exercise.stub))
        for variant in exercise.wrong_variants:
            read_header(variant)  # a variant without a valid header stops validation at once
            work.append((exercise, "wrong", variant))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda w: _judge(w[0], w[1], w[2], seed, backend), work))


def run(
    course: Course,
    keys: Sequence[str],
    seed: int | None,
    as_json: bool,
    backend: str,
    jobs: int | None = None,
) -> int:
    exercises = [course.find(k) for k in keys] if keys else list(course.exercises)
    seed = new_seed() if seed is None else seed
    # On a GPU, one grading at a time (they would share the device); on the CPU, one per core.
    jobs = jobs or ((os.cpu_count() or 1) if backend == "cpu" else 1)
    console = Console(stderr=as_json)
    with console.status(f"validating {', '.join(e.id for e in exercises)} ({jobs} at a time)..."):
        items = validate_exercises(exercises, seed, backend, jobs)
    counts = {
        v: sum(1 for i in items if i.verdict == v)
        for v in ("ok", "wrong", "inconclusive", "needs a GPU")
    }
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
                Text(item.file),
                Text(item.verdict, style=_STYLE[item.verdict]),
                Text(item.detail),  # quotes a report's message: never markup
            )
        console.print(table)
        console.print(
            f"{counts['ok']} as expected, {counts['wrong']} not as expected, "
            f"{counts['inconclusive']} inconclusive, {counts['needs a GPU']} need a GPU to judge"
        )
        if counts["inconclusive"]:
            console.print(
                "[yellow]inconclusive: runtime checks were skipped (no usable GPU)[/yellow]"
            )
    # Variants that only timing can catch are judged on a GPU; elsewhere they do not fail the run.
    settled = counts["ok"] + counts["needs a GPU"]
    return EXIT_OK if settled == len(items) else EXIT_CHECK_FAILED

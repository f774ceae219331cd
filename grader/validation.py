"""Validating the course: every solution must pass; every stub and known-wrong variant must fail,
for the reason it declares (grader/expectations.py judges each report)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from grader.checks.base import STOPPED_AT_FIRST_FAILURE
from grader.children import serving, warm
from grader.course import Exercise
from grader.expectations import (
    VariantHeader,
    Verdict,
    judge_acceptance,
    judge_rejection,
    read_header,
)
from grader.grading import default_answers, grade
from grader.results import Report
from grader.source import read_source
from grader.validation_order import longest_first, record, recorded


@dataclass(frozen=True)
class Item:
    """One graded file and what was found of it."""

    exercise: str
    role: str
    """`solution`, `stub` or `wrong`."""
    file: str
    """Relative to the course root."""
    verdict: Verdict
    detail: str


def judge(exercise: Exercise, role: str, path: Path, seed: int, backend: str) -> Item:
    """Grade one solution, stub or known-wrong variant (a kernel, or an answers file that goes
    with the solution's kernel) and judge it against what it must do."""
    file = _course_path(exercise, path)
    answers_variant = path.suffix == ".yaml"
    kernel = exercise.solution if answers_variant else path
    answers = path if answers_variant else default_answers(exercise, kernel)
    source = read_source(kernel)
    if role == "solution":
        report = grade(exercise, source, seed=seed, backend=backend, answers=answers)
        verdict, detail = judge_acceptance(report)
        return Item(exercise.id, role, file, verdict, detail)
    header = read_header(path) if role == "wrong" else None
    if header is not None and backend == "cpu" and _only_timing_catches(header):
        # the CPU backend times nothing: grading it here would spend a whole correctness run
        # (seconds of emulation) to learn only that it needs a GPU
        detail = "not graded on the CPU: only the performance check, which needs a GPU, catches it"
        return Item(exercise.id, role, file, "needs a GPU", detail)
    # an answers variant goes with the solution's kernel, whose correctness the solution's own
    # grading judges: here only what the answers are graded against runs
    selection = "not correctness" if answers_variant else ""
    # A file that must fail is graded up to its first failure, which is usually the declared
    # reason (in its message, or in a hint the failure brings). Where it is not, it is graded
    # again up to the first failure whose message bears the reason out, or in full where none
    # does (the reason is a hint across every case, or missing): the whole grading decides.
    graded = partial(
        grade, exercise, source, seed=seed, backend=backend, answers=answers, selection=selection
    )
    report = graded(first_failure_stops=True)
    verdict, detail = judge_rejection(report, header)
    if verdict != "ok" and header is not None and _stopped(report):
        verdict, detail = judge_rejection(graded(stop_at=header.expectations), header)
    return Item(exercise.id, role, file, verdict, detail)


def _course_path(exercise: Exercise, path: Path) -> str:
    """`path` as the course names it (relative to its root): how items and their times go."""
    return str(path.relative_to(exercise.directory.parent.parent))


def _stopped(report: Report) -> bool:
    return any(c.message == STOPPED_AT_FIRST_FAILURE for c in report.checks)


def _only_timing_catches(header: VariantHeader) -> bool:
    """Whether every reason a variant declares is a performance check's."""
    return all(e.kind == "performance" for e in header.expectations)


def validate_exercises(
    exercises: Sequence[Exercise],
    seed: int,
    backend: str,
    jobs: int,
    on_judged: Callable[[Item, int, int], None] = lambda item, done, total: None,
) -> list[Item]:
    """Grade every solution, stub and known-wrong variant, `jobs` at a time (in grading children
    that take file after file) and the longest first, and judge each against what it must do;
    `on_judged(item, done, total)` hears of each as it is judged. The items come back in the
    course's order."""
    work: list[tuple[Exercise, str, Path]] = []
    for exercise in exercises:
        work.append((exercise, "solution", exercise.solution))
        work.append((exercise, "stub", exercise.stub))
        for variant in exercise.wrong_variants:
            read_header(variant)  # a variant without a valid header stops validation at once
            work.append((exercise, "wrong", variant))
    keys = [f"{backend} {_course_path(e, path)}" for e, _, path in work]
    done = 0
    took: dict[str, float] = {}
    lock = threading.Lock()

    def judged(index: int) -> Item:
        nonlocal done
        start = time.monotonic()
        item = judge(*work[index], seed, backend)
        with lock:
            done += 1
            took[keys[index]] = time.monotonic() - start
            on_judged(item, done, len(work))
        return item

    # the longest gradings first (as long as they took the last time), so that none is left
    # running alone at the end; each grading child takes file after file (its start-up was a
    # third of a small item's time)
    order = longest_first(keys, recorded())
    with serving(), ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        warm(backend, {}, max(1, jobs))
        found = dict(zip(order, pool.map(judged, order), strict=True))
    record(took)
    return [found[index] for index in range(len(work))]


def settled(items: Sequence[Item]) -> bool:
    """Whether every item is as expected, or needs a GPU to judge: variants that only timing can
    catch are judged on a GPU; elsewhere they do not fail the run."""
    return all(i.verdict in ("ok", "needs a GPU") for i in items)

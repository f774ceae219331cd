"""`grader validate`: every solution passes; every stub and known-wrong variant fails, for the
reason it declares (grader/validation.py). Exit 0 when every verdict is settled, else 1."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.console import Console

from grader.course import Course
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK
from grader.grading import new_seed
from grader.report.notices import judged
from grader.report.validation import print_validation, status_line, validation_json
from grader.validation import settled, validate_exercises


def run(
    *,
    course: Course,
    exercises: Sequence[str] = (),
    seed: int | None = None,
    as_json: bool = False,
    backend: str = "auto",
    jobs: int | None = None,
) -> int:
    chosen = [course.find(k) for k in exercises] if exercises else list(course.exercises)
    seed = new_seed() if seed is None else seed
    # On a GPU, one grading at a time (they would share the device); on the CPU, one per core.
    jobs = jobs or ((os.cpu_count() or 1) if backend == "cpu" else 1)
    console = Console(stderr=as_json)
    first = status_line([e.id for e in chosen], jobs)
    with console.status(first) as line:
        items = validate_exercises(
            chosen,
            seed,
            backend,
            jobs,
            lambda item, done, total: line.update(judged(first, done, total, item.file)),
        )
    if as_json:
        print(validation_json(seed, items))
    else:
        print_validation(seed, items, console)
    return EXIT_OK if settled(items) else EXIT_CHECK_FAILED

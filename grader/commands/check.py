"""`grader check EX`: grade one kernel for one exercise and show the report (or its JSON); write
the sweep chart next to the kernel and, with --benchmark-json, the timing's raw figures."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK
from grader.grading import default_answers, grade
from grader.isolation import Progress
from grader.notebook import kernel_from_notebook
from grader.report.chart import write_sweep_chart
from grader.report.json_text import render_json
from grader.report.terminal import print_check
from grader.results import Report
from grader.sandbox import scope
from grader.source import read_source


def _grade(
    exercise: Exercise,
    kernel: Path,
    seed: int | None,
    backend: str,
    benchmark_json: Path | None,
    exitfirst: bool,
    progress: Progress,
) -> Report:
    """The report of the kernel (a .cu file or a notebook)."""
    if kernel.suffix == ".ipynb":
        source = kernel_from_notebook(kernel, exercise.id)
    else:
        source = read_source(kernel)
    # named as a grading scope is: what a killed grader leaves, the next one removes
    with tempfile.TemporaryDirectory(prefix=f"{scope.PREFIX}{os.getpid()}-bench-") as keep:
        report = grade(
            exercise,
            source,
            seed=seed,
            backend=backend,
            keep_dir=Path(keep),
            answers=default_answers(exercise, kernel),
            first_failure_stops=exitfirst,
            progress=progress,
        )
        kept = Path(keep) / "benchmark.json"
        if benchmark_json is not None and kept.is_file():
            benchmark_json.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, benchmark_json)
    return report


def _quiet(what: str) -> None:
    """No status line (not a terminal, or --json)."""


def run(
    *,
    course: Course,
    exercise: str,
    file: Path | None = None,
    seed: int | None = None,
    as_json: bool = False,
    backend: str = "auto",
    benchmark_json: Path | None = None,
    exitfirst: bool = False,
) -> int:
    """Exit 0 when the kernel passes, 1 when a check fails."""
    chosen = course.find(exercise)
    kernel = file if file is not None else chosen.stub
    # on a terminal, a status line says what runs now (the CPU emulator takes tens of seconds);
    # nothing of it reaches stdout, so --json and pipes are as before
    status = Console(stderr=True)
    if status.is_terminal and not as_json:
        with status.status(f"{chosen.id}: starting") as line:
            report = _grade(
                chosen, kernel, seed, backend, benchmark_json, exitfirst,
                lambda what: line.update(escape(f"{chosen.id}: {what}")),
            )  # fmt: skip
    else:
        report = _grade(chosen, kernel, seed, backend, benchmark_json, exitfirst, _quiet)
    chart = write_sweep_chart(report, kernel.parent / f"grader-{chosen.id}-sweep.png")
    if as_json:
        print(render_json(report))
    else:
        print_check(report, chart, Console())
    return EXIT_OK if report.passed else EXIT_CHECK_FAILED

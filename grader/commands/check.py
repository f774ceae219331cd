"""`grader check EX`: grade one kernel for one exercise and show the report (or its JSON); write
the sweep chart next to the kernel and, with --benchmark-json, the timing's raw figures."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from grader.checks.registry import plan
from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK, GraderError
from grader.grading import default_answers, grade
from grader.isolation import Progress
from grader.notebook import read_kernel
from grader.report.chart import write_sweep_chart
from grader.report.json_text import feedback_json, render_json
from grader.report.notices import running
from grader.report.terminal import print_check, print_summary_of_all
from grader.results import Report
from grader.sandbox import scope
from grader.selection import parse_selection


@dataclass(frozen=True)
class _Options:
    """How each kernel is graded."""

    seed: int | None
    backend: str
    benchmark_json: Path | None
    exitfirst: bool
    selection: str


def _grade(exercise: Exercise, kernel: Path, options: _Options, progress: Progress) -> Report:
    """The report of the kernel (a .cu file or a notebook)."""
    source = read_kernel(kernel, exercise.id)
    # named as a grading scope is: what a killed grader leaves, the next one removes
    with tempfile.TemporaryDirectory(prefix=f"{scope.PREFIX}{os.getpid()}-bench-") as keep:
        report = grade(
            exercise,
            source,
            seed=options.seed,
            backend=options.backend,
            keep_dir=Path(keep),
            answers=default_answers(exercise, kernel),
            first_failure_stops=options.exitfirst,
            selection=options.selection,
            progress=progress,
        )
        kept, wanted = Path(keep) / "benchmark.json", options.benchmark_json
        if wanted is not None and kept.is_file():
            wanted.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, wanted)
    return report


def _quiet(what: str) -> None:
    """No status line (not a terminal, or --json)."""


def run(
    *,
    course: Course,
    exercise: str | None,
    file: Path | None = None,
    seed: int | None = None,
    as_json: bool = False,
    backend: str = "auto",
    benchmark_json: Path | None = None,
    exitfirst: bool = False,
    verbose: bool = False,
    every: bool = False,
    selection: str = "",
) -> int:
    """Exit 0 when the kernel passes (with --all: every exercise's), 1 when a check fails."""
    if every == (exercise is not None):
        raise GraderError("grader check: give one exercise (e.g. ex4), or --all for every one")
    if every and (file is not None or benchmark_json is not None):
        raise GraderError("grader check --all grades each exercise's own kernel.cu: no --file")
    chosen = list(course.exercises) if exercise is None else [course.find(exercise)]
    if selection:
        _some_check_selected(chosen, selection)
    absent = [one.stub for one in chosen if every and not one.stub.exists()]
    if absent:  # said before minutes of grading the others, not after
        raise GraderError(
            f"grader check --all: {absent[0]} not found ({len(absent)} exercise(s) without a "
            "kernel.cu): put the stub back, or check the others one by one (grader check ex1)"
        )
    options = _Options(seed, backend, benchmark_json, exitfirst, selection)
    reports: list[Report] = []
    for one in chosen:
        kernel = file if file is not None else one.stub
        report = _checked(one, kernel, options, as_json)
        chart = write_sweep_chart(report, kernel.parent / f"grader-{one.id}-sweep.png")
        if not as_json:
            print_check(report, chart, Console(), verbose=verbose)
        reports.append(report)
    if as_json:
        print(render_json(reports[0]) if not every else feedback_json(reports))
    elif every:
        print_summary_of_all(reports, Console())
    return EXIT_OK if all(r.passed for r in reports) else EXIT_CHECK_FAILED


def _some_check_selected(chosen: list[Exercise], selection: str) -> None:
    """A -k that selects no check of the exercises chosen is one line, as pytest says so too."""
    matcher = parse_selection(selection)
    names = [p.name for one in chosen for p in plan(one.spec)]
    if not any(matcher(name) for name in names):
        shown = ", ".join(dict.fromkeys(names))
        raise GraderError(f"-k {selection!r} selects no check; the checks are: {shown}")


def _checked(exercise: Exercise, kernel: Path, options: _Options, as_json: bool) -> Report:
    """The report, with a status line on a terminal saying what runs now (the CPU emulator takes
    tens of seconds); nothing of it reaches stdout, so --json and pipes are as before."""
    status = Console(stderr=True)
    if status.is_terminal and not as_json:
        with status.status(running(exercise.id, "starting")) as line:
            return _grade(
                exercise, kernel, options, lambda what: line.update(running(exercise.id, what))
            )
    return _grade(exercise, kernel, options, _quiet)

"""`grader profile EX [--file K]`: Nsight Compute's figures for the exercise's reference kernels
and the student's, side by side. Nothing is graded; ncu's failures are one line."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.grading import new_seed
from grader.notebook import kernel_from_notebook
from grader.profiling.ncu import ProfileUnavailable, plan_kernels, run_profile
from grader.report import profile_table
from grader.source import read_source


def run(course: Course, key: str, file: Path | None) -> int:
    exercise = course.find(key)
    profile = exercise.spec.profile
    if profile is None:
        with_profile = [e.id for e in course.exercises if e.spec.profile is not None]
        raise GraderError(
            f"{exercise.id} has no profile section in {exercise.directory / 'spec.yaml'} "
            f"(exercises with one: {', '.join(with_profile) or 'none'})"
        )
    kernel = file if file is not None else exercise.stub
    source = kernel_from_notebook(kernel, exercise.id) if kernel.suffix == ".ipynb" else None
    source = source or read_source(kernel)
    kernels = plan_kernels(exercise.spec, exercise.directory.parent.parent, source)
    console = Console()
    console.print(f"profiling {', '.join(k.label for k in kernels)} with ncu at n = {profile.size}")
    outcome = run_profile(kernels, profile.size, new_seed(), profile.time_limit_s)
    if isinstance(outcome, ProfileUnavailable):
        raise GraderError(outcome.reason)
    console.print(profile_table({p.label: p.values for p in outcome}, profile.size))
    return EXIT_OK

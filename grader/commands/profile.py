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
from grader.report.profile import print_profiling, profile_table
from grader.source import read_source


def run(*, course: Course, exercise: str, file: Path | None = None) -> int:
    chosen = course.find(exercise)
    profile = chosen.spec.profile
    if profile is None:
        with_profile = [e.id for e in course.exercises if e.spec.profile is not None]
        raise GraderError(
            f"{chosen.id} has no profile section in {chosen.directory / 'spec.yaml'} "
            f"(exercises with one: {', '.join(with_profile) or 'none'})"
        )
    kernel = file if file is not None else chosen.stub
    source = kernel_from_notebook(kernel, chosen.id) if kernel.suffix == ".ipynb" else None
    source = source or read_source(kernel)
    kernels = plan_kernels(chosen.spec, chosen.directory.parent.parent, source)
    console = Console()
    print_profiling([k.label for k in kernels], profile.size, console)
    outcome = run_profile(kernels, profile.size, new_seed(), profile.time_limit_s)
    if isinstance(outcome, ProfileUnavailable):
        raise GraderError(outcome.reason)
    console.print(profile_table({p.label: p.values for p in outcome}, profile.size))
    return EXIT_OK

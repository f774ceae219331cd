"""grade(exercise, source) -> Report: one trip through an isolated child and back."""

from __future__ import annotations

import secrets
from pathlib import Path

from grader.checks.diagnosis import cross_case_hints
from grader.course import Exercise
from grader.isolation import run_isolated
from grader.pipeline import Job, correctness_cases, plan
from grader.results import Report
from grader.source import KernelSource


def new_seed() -> int:
    return secrets.randbelow(2**31)


def grade(
    exercise: Exercise,
    source: KernelSource,
    *,
    seed: int | None = None,
    backend: str = "auto",
    keep_dir: Path | None = None,
) -> Report:
    """Grade `source` for `exercise`: every check of its spec, each with a verdict."""
    seed = new_seed() if seed is None else seed
    spec = exercise.spec
    job = Job(
        spec_path=str(exercise.directory / "spec.yaml"),
        source_text=source.text,
        display_name=source.display_name,
        seed=seed,
        backend=backend,
        course_root=str(exercise.directory.parent.parent),
        keep_dir=str(keep_dir) if keep_dir else "",
    )
    device, checks = run_isolated(job, plan(spec), spec.time_limit_s)
    by_name = {c.name: c for c in checks}
    cases = [(case.case.dims, by_name[case.name]) for case in correctness_cases(spec)]
    hints = cross_case_hints(cases, spec.kernel.defines.get("TILE_SIZE"), spec.launch)
    return Report(
        exercise=exercise.id,
        title=exercise.title,
        source=source.display_name,
        seed=seed,
        device=device,
        checks=checks,
        hints=hints,
    )

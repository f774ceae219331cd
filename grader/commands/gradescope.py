"""grader gradescope (the entry point inside Gradescope's container), grader gradescope-package
(builds the autograder zip) and grader release (the course without solutions, for students)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from grader.batch.discover import in_folder
from grader.batch.gradescope import COURSE_PARTS, results_json, write_package
from grader.batch.run_one import grade_submission
from grader.course import Course
from grader.errors import EXIT_OK, GraderError


def run(course: Course, keys: Sequence[str], submission: Path, results: Path) -> int:
    exercises = [course.find(k) for k in keys] if keys else list(course.exercises)
    if not submission.is_dir():
        raise GraderError(f"{submission}: no submission directory")
    found = in_folder(submission, "student", exercises, "gradescope")
    reports = [grade_submission(s, None, "auto") for s in found if s.kernel is not None]
    missing = [s.exercise.id for s in found if s.kernel is None]
    data = results_json(reports)
    if missing:
        data["output"] += f"; nothing found for {', '.join(missing)}"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(data, indent=2))
    return EXIT_OK


def package(course: Course, keys: Sequence[str], target: Path) -> int:
    exercise_ids = [course.find(k).id for k in keys] if keys else [e.id for e in course.exercises]
    if target.exists():
        raise GraderError(f"{target} exists: choose another path (nothing is overwritten)")
    write_package(course.root, target, exercise_ids)
    print(f"autograder package: {target} (exercises {', '.join(exercise_ids)})")
    return EXIT_OK


def release(course: Course, target: Path) -> int:
    """A student copy of the course: everything but solutions/."""
    if target.exists() and any(target.iterdir()):
        raise GraderError(f"{target} is not empty: choose an empty or new directory")
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in (*COURSE_PARTS, "bin", "docs"):
        source = course.root / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=ignore)
        elif source.is_file():
            shutil.copy2(source, target / part)
    print(f"student copy of the course: {target} (without solutions/)")
    return EXIT_OK

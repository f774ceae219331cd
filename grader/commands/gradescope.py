"""`grader gradescope`: the entry point inside Gradescope's container. Grades what the student
handed in for each exercise and writes results.json (grader/report/gradescope.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.run_one import grade_submission
from grader.batch.student_folder import read_folder
from grader.checks.registry import plan
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.gradescope import instructor_lines, render_results


def run(*, course: Course, exercises: Sequence[str] = (), submission: Path, results: Path) -> int:
    chosen = [course.find(k) for k in exercises] if exercises else list(course.exercises)
    if not submission.is_dir():
        raise GraderError(f"{submission}: no submission directory")
    if results.is_dir():
        raise GraderError(f"--results {results}: a directory; give the file, e.g. results.json")
    others = [e for e in course.exercises if e.id not in {c.id for c in chosen}]
    found, note = read_folder(submission, "student", chosen, "gradescope", others)
    reports = [grade_submission(s, None, "auto") for s in found if s.kernel is not None]
    missing = [s.exercise.id for s in found if s.kernel is None]
    if missing and "; " in note:  # what was not read, and why
        missing[-1] += f" ({note.split('; ', 1)[1]})"
    on_gpu = {e.id: {p.name for p in plan(e.spec) if p.needs_gpu} for e in chosen}
    try:
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text(render_results(reports, missing, on_gpu))
    except OSError as exc:
        raise GraderError(f"--results {results}: cannot write ({exc.strerror})") from None
    for line in instructor_lines(reports):
        print(line)
    return EXIT_OK

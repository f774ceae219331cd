"""`grader similarity SUBMISSIONS --exercise ex1 [--threshold 0.8] [--report FILE.html]`: pairs
of near-copies among one exercise's submissions, for the instructor (grader/batch/similarity.py)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from grader.batch.discover import discover
from grader.batch.similarity import highlighted, similar_pairs
from grader.batch.stubs import stub_warnings
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.notebook import read_kernel
from grader.report.similarity import GENERATOR, pair_lines, similarity_html
from grader.source import read_source

SAME = (
    "similarity subtracts it as the starter code everyone began from, so copies of the solution "
    "show 0%: restore the stub (e.g. git checkout -- exercises) unless that is meant"
)
CHANGED = "similarity subtracts the stub as it is now as the starter code everyone began from"


def _ours(page: Path) -> bool:
    try:
        return f'content="{GENERATOR}"' in page.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False


def run(
    *,
    course: Course,
    submissions: Path,
    exercises: Sequence[str],
    threshold: float = 0.8,
    report: Path | None = None,
) -> int:
    if not 0 < threshold <= 1:
        raise GraderError(f"--threshold {threshold}: give a share between 0 and 1, e.g. 0.8")
    if len(exercises) != 1:
        raise GraderError(
            f"--exercise given {len(exercises)} times: similarity compares one exercise's "
            "hand-ins; run it once per exercise"
        )
    chosen = course.find(exercises[0])
    if report is not None and report.exists() and not _ours(report):
        raise GraderError(f"--report {report}: a file not written by grader similarity is there")
    texts: dict[str, str] = {}
    left_out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="grader-similarity-") as scratch:
        # read as a batch of every exercise reads the folder (a student's ex1 kernel is not
        # their ex3), and where that finds nothing of a student's for this exercise, as a
        # batch of this exercise alone reads it (a single alice.cu, the only .cu in a folder)
        every, _notes = discover(submissions, course.exercises, Path(scratch) / "every")
        others = [e for e in course.exercises if e.id != chosen.id]
        alone, _notes = discover(submissions, [chosen], Path(scratch) / "alone", others)
        mine = {s.student: s for s in every if s.exercise.id == chosen.id and s.kernel}
        for submission in alone:
            mine.setdefault(submission.student, submission)
        for student, submission in sorted(mine.items()):
            if submission.error is not None:
                left_out.append(f"{student} ({submission.error})")
                continue
            if submission.kernel is None:
                continue  # nothing handed in for this exercise
            try:
                source = read_kernel(submission.kernel, chosen.id)
            except GraderError as exc:
                left_out.append(f"{student} ({exc})")
                continue
            texts[student] = source.text
    try:
        starter = str(chosen.stub.relative_to(course.root))
    except ValueError:
        starter = str(chosen.stub)
    for line in stub_warnings(course.root, [chosen], [starter], SAME, CHANGED):
        print(line, file=sys.stderr)
    stub = read_source(chosen.stub).text
    pairs = similar_pairs(texts, stub, threshold)
    for line in pair_lines(pairs, threshold, len(texts), starter):
        print(line)
    if left_out:
        print(f"not compared (unreadable or refused): {'; '.join(left_out)}")
    if report is not None:
        report.write_text(similarity_html(chosen.id, pairs, texts, highlighted, starter))
        print(f"side by side: {report}")
    return EXIT_OK

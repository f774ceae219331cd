"""The course itself, on the CPU backend: every solution passes, and every stub and known-wrong
variant fails for the reason it declares. This is `grader validate --backend cpu`'s judgement
(grader/validation.py), one test per file, so that pytest -n spreads the gradings over its
workers beside the other tests instead of before them. They run first: they are the longest,
and later tests reuse their builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.course import Exercise, load_course
from grader.grading import new_seed
from grader.validation import files_to_judge, judge

ROOT = Path(__file__).resolve().parents[2]
COURSE = load_course(ROOT)
FILES = files_to_judge(COURSE.exercises)
SEED = new_seed()
"""One seed for the run, as `grader validate` draws one; a failure quotes it."""

pytestmark = [pytest.mark.slow, pytest.mark.early]


@pytest.mark.parametrize(
    ("exercise", "role", "path"),
    FILES,
    ids=[str(path.relative_to(ROOT)) for _, _, path in FILES],
)
def test_the_course_file_is_judged_as_it_must_be(exercise: Exercise, role: str, path: Path) -> None:
    item = judge(exercise, role, path, SEED, "cpu")
    # a variant only a performance check catches needs a GPU to be judged; elsewhere it does not
    # fail the run (grader.validation.settled)
    assert item.verdict in ("ok", "needs a GPU"), (
        f"{item.file} ({role}): {item.verdict}: {item.detail}\n"
        f"again: grader validate {exercise.id} --backend cpu --seed {SEED}"
    )

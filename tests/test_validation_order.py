"""`grader validate` starts the gradings that took longest the last time first, so that no long
one is left running alone at the end, and still lists its verdicts in the course's order. The
times it keeps are a hint: a missing, broken or unwritable file of times changes no verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.course import Exercise, load_course
from grader.validation import Item, validate_exercises
from grader.validation_order import longest_first, record, recorded
from tests.conftest import ROOT


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "validate" / "durations.json"


def test_unknown_gradings_start_first_then_the_longest() -> None:
    keys = ["a", "b", "c", "d", "e"]
    times = {"a": 0.1, "b": 15.0, "d": 0.1, "e": 4.0}
    assert longest_first(keys, times) == [2, 1, 4, 0, 3]  # ties (a, d) keep their order


def test_times_are_kept_for_the_next_run(own_cache: Path) -> None:
    assert recorded() == {}
    record({"cpu solutions/ex1/kernel.cu": 6.0, "cpu exercises/ex1/kernel.cu": 0.2})
    record({"cpu solutions/ex1/kernel.cu": 5.5})  # a later run's time replaces the older one
    assert recorded() == {"cpu solutions/ex1/kernel.cu": 5.5, "cpu exercises/ex1/kernel.cu": 0.2}


def test_a_broken_file_of_times_is_no_times(own_cache: Path) -> None:
    own_cache.parent.mkdir(parents=True)
    for broken in ("{not json", '["a list"]', '{"x": "slow", "y": true, "z": 2}'):
        own_cache.write_text(broken)
        assert recorded() == ({"z": 2.0} if "z" in broken else {})
    record({"x": 1.0})
    assert json.loads(own_cache.read_text()) == {"x": 1.0, "z": 2.0}


def test_a_cache_that_cannot_be_written_costs_only_the_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("GRADER_CACHE_DIR", str(blocked))  # no folder can be made inside it
    record({"x": 1.0})
    assert recorded() == {}


def test_validate_starts_the_longest_and_reports_in_course_order(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []

    def judge(exercise: Exercise, role: str, path: Path, seed: int, backend: str) -> Item:
        started.append(path.name)
        return Item(exercise.id, role, path.name, "ok", "")

    monkeypatch.setattr("grader.validation.judge", judge)
    monkeypatch.setattr("grader.validation.warm", lambda *args: None)
    exercise = load_course(ROOT).find("ex1")
    first = validate_exercises([exercise], 1, "cpu", 1)
    in_course_order = [item.file for item in first]
    assert started == in_course_order  # nothing known yet: the course's order
    assert set(recorded()) == {
        f"cpu {path.relative_to(ROOT)}"
        for path in (exercise.solution, exercise.stub, *exercise.wrong_variants)
    }

    slow = f"cpu {exercise.wrong_variants[-1].relative_to(ROOT)}"
    record({slow: 15.0})
    started.clear()
    second = validate_exercises([exercise], 1, "cpu", 1)
    assert started[0] == exercise.wrong_variants[-1].name
    assert [item.file for item in second] == in_course_order

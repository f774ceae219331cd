"""Property-based tests (hypothesis) of the parsers that read what users write: spec.yaml,
course.yaml and answers files. Whatever the text, the result is a parsed model or one line that
names the file; never a traceback, never a second line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.checks.answers import TileSweepAnswers
from grader.checks.answers_load import load_answers
from grader.checks.profile_answers import ProfilingAnswers
from grader.course import load_course
from grader.errors import GraderError
from grader.spec import load_spec
from tests.conftest import ROOT

# integration: hundreds of generated files per test
pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SPEC = yaml.safe_load((ROOT / "exercises/ex4-register-tiling/spec.yaml").read_text())
ANSWERS = {
    "ex2": (
        yaml.safe_load((ROOT / "solutions/ex2-tile-sweep/answers.yaml").read_text()),
        TileSweepAnswers,
    ),
    "ex3": (
        yaml.safe_load((ROOT / "solutions/ex3-profiling/answers.yaml").read_text()),
        ProfilingAnswers,
    ),
}
ODD_VALUES = st.sampled_from(
    [
        None,
        -1,
        0,
        1,
        10**30,
        -1e308,
        float("nan"),
        float("inf"),
        True,
        "",
        "x",
        "1x2",
        "0x0x0",
        "-5x3x3",
        [],
        [0],
        {},
        {"a": 1},
        "ü\u202e",
        "1" * 5000,
    ]
)


def _paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of a nested document (dict keys and list indices)."""
    found = [prefix] if prefix else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> Any:
    """The document with one to three values replaced, keys dropped or unknown keys added."""
    result = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(result)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = result
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(draw(ODD_VALUES))  # never the shared sample
        elif action == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "Points", "tile_size", "x"]))] = 1
    return result


def _one_line_naming(error: GraderError, *names: str) -> None:
    """The error is one line naming one of the files it may come from."""
    message = str(error)
    assert "\n" not in message, message
    assert any(name in message for name in names), message


@SETTINGS
@given(text=st.text(max_size=300))
def test_any_text_as_a_spec_parses_or_fails_in_one_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        load_spec(path)
    except GraderError as error:
        _one_line_naming(error, "spec.yaml")


@SETTINGS
@given(document=mutated(SPEC))
def test_a_mutated_spec_parses_or_fails_in_one_line(tmp_path: Path, document: Any) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    try:
        spec = load_spec(path)
    except GraderError as error:
        _one_line_naming(error, "spec.yaml")
    else:  # what parses is sane: no zero-sized shape, no negative limit
        assert spec.time_limit_s > 0
        assert all(min(case.dims) > 0 for case in spec.correctness.cases)


@SETTINGS
@given(document=mutated(yaml.safe_load((ROOT / "course.yaml").read_text())))
def test_a_mutated_course_parses_or_fails_in_one_line(tmp_path: Path, document: Any) -> None:
    import shutil

    for name in ("exercises", "reference"):
        if not (tmp_path / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "course.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    try:
        load_course(tmp_path)
    except GraderError as error:
        _one_line_naming(error, "course.yaml", "spec.yaml")


@SETTINGS
@given(exercise=st.sampled_from(sorted(ANSWERS)), data=st.data())
def test_mutated_answers_parse_or_fail_in_one_line(exercise: str, data: st.DataObject) -> None:
    document, model = ANSWERS[exercise]
    text = yaml.safe_dump(data.draw(mutated(document)), allow_unicode=True)
    _one_line_each(load_answers(text, "answers.yaml", model, lambda loc: str(loc[:1])))


@SETTINGS
@given(text=st.text(max_size=300))
def test_any_text_as_answers_parses_or_fails_in_one_line(text: str) -> None:
    for model in (TileSweepAnswers, ProfilingAnswers):
        _one_line_each(load_answers(text, "answers.yaml", model, lambda loc: str(loc[:1])))


def _one_line_each(result: object) -> None:
    """A file that cannot be read: one line; one that can: each question's problems on one
    line, each naming the file."""
    problems = [result] if isinstance(result, str) else list(result.problems.values())  # type: ignore[attr-defined]
    for problem in problems:
        assert "\n" not in problem and problem.startswith("answers.yaml"), problem

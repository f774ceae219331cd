"""An exercise's answers file read with the model of its kind (a tile sweep's or a profile's)."""

from __future__ import annotations

from typing import Any

from grader.checks.answers import TileSweepAnswers, tile_sweep_question
from grader.checks.answers_load import Loaded, load_answers
from grader.checks.profile_answers import ProfilingAnswers, profiling_question
from grader.spec import AnswersSpec


def load_for(spec: AnswersSpec, text: str | None) -> Loaded[Any] | str:
    """The answers as grading reads them, or the one-line reason none can be read."""
    if spec.kind == "tile_sweep":
        return load_answers(text, spec.file, TileSweepAnswers, tile_sweep_question)
    return load_answers(text, spec.file, ProfilingAnswers, profiling_question)


def problems(spec: AnswersSpec, text: str | None, error: str) -> str:
    """What grading would find wrong with the file's form ('' where nothing, or where it is
    absent): not YAML, or values of the wrong type, each with its line."""
    if error:
        return error
    if text is None:
        return ""
    loaded = load_for(spec, text)
    if isinstance(loaded, str):
        return loaded
    return "; ".join(loaded.problems.values())

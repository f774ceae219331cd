"""An answers file read question by question: each value of the wrong type, and each key given
twice, costs its own question only, with its file, line and column; the rest is graded
(checks/answers.py and checks/profile_answers.py grade what this reads)."""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from grader.checks.answers_faults import comma_hint, drop_all, fault_at
from grader.errors import GraderError
from grader.schema_errors import describe
from grader.yaml_source import Twice, read_yaml


def _lowered(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


CASE_FREE = BeforeValidator(_lowered)
"""On a choice among lower-case words: the word in any case (L1, Tiled) is that word."""


class AnswersModel(BaseModel):
    """An answers file's schema: unknown keys, numbers given as text, infinities and NaN are
    errors."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


Answers = TypeVar("Answers", bound=AnswersModel)


QuestionOf = Callable[[tuple[str | int, ...]], str | None]
"""The questions a location in the answers file belongs to, as a pattern of their checks' names
(fnmatch's: `answers TILE_SIZE=* figures` is each tile size's); None for none."""


@dataclass(frozen=True)
class Loaded(Generic[Answers]):
    """Answers as read: every value that is valid, and each question's problems (a question with
    a problem is failed with it; the others are graded). Problems that belong to no question are
    under the key None."""

    answers: Answers
    problems: dict[str | None, str]


_MAX_PROBLEMS = 50


def load_answers(
    text: str | None, name: str, model: type[Answers], question_of: QuestionOf
) -> Loaded[Answers] | str:
    """The answers, each question on its own: a value of the wrong type costs its question
    only, with the problem's file, line and column. A one-line reason instead where the file
    cannot be read at all (missing, not YAML)."""
    if text is None:
        return f"{name} not found next to the kernel: copy the exercise's template and fill it in"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        path.write_text(text, encoding="utf-8")
        twice: Twice = []  # a key given twice costs its own question, as a bad value does
        try:
            document = read_yaml(path, twice=twice)
        except GraderError as exc:
            return str(exc).replace(str(path), name)
    if document.data is None:
        return f"{name} is empty: copy the exercise's template and fill it in"
    if not isinstance(document.data, dict):
        return f"{name}: expected a mapping of keys at the top level"
    data = document.data
    problems: dict[str | None, list[str]] = {}
    for key, problem in twice:
        problems.setdefault(question_of(key), []).append(problem.replace(str(path), name))
    drop_all(data, [fault_at(data, key) for key, _ in twice])
    for _ in range(_MAX_PROBLEMS):
        try:
            answers = model.model_validate(data)
        except ValidationError as exc:
            faults: list[tuple[Any, ...]] = []
            first = ""
            for error in exc.errors():
                loc = tuple(error["loc"])
                where = document.where_exactly(loc).replace(str(path), name)
                where_line = document.line_of(loc)
                said = problems.setdefault(question_of(loc), [])
                message = f"{where}: {describe(error, model)}{comma_hint(text, where_line)}"
                first = first or message
                if message not in said:
                    said.append(message)
                faults.append(fault_at(data, loc))
            # every value at fault in this round goes, each once (two errors in one entry take
            # that entry, never its neighbours); nothing found to remove: the file is refused
            if not drop_all(data, faults):
                return first
        else:
            return Loaded(answers, {q: "; ".join(said) for q, said in problems.items()})
    return f"{name}: more than {_MAX_PROBLEMS} problems"


def misspelled(loc: tuple[str | int, ...], keys: Collection[str]) -> tuple[str | int, ...]:
    """`loc` with an unknown top-level key read as the known one it is close to
    (`fastest_tilesize` as `fastest_tile_size`), so that its problem goes to that question."""
    if not loc or str(loc[0]) in keys:
        return loc
    close = difflib.get_close_matches(str(loc[0]), list(keys), n=1, cutoff=0.8)
    return (close[0], *loc[1:]) if close else loc

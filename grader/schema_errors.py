"""Validating a YAML document against a model: the first problem becomes one line that names the
file, the line, the key and what is allowed there."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

from pydantic import BaseModel, ValidationError

from grader.errors import GraderError
from grader.yaml_source import YamlDocument


def _unwrap_model(annotation: Any) -> Any:
    """The model class inside an annotation such as `list[CaseSpec]` or `X | None`."""
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Union, types.UnionType, Annotated):
        for arg in typing.get_args(annotation):
            inner = _unwrap_model(arg)
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner
    return annotation


def _model_at(model: type[BaseModel], loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model a location names, through lists and mappings (`measurements.32`: a
    TileMeasurement); None where it names no model."""
    current: Any = model
    for part in loc:
        current = _child(current, part)
    current = _unwrap_model(_inner(current))
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner(annotation: Any) -> Any:
    """`annotation` without `| None` and `Annotated[...]` around it."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _inner(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _inner(kept[0]) if len(kept) == 1 else annotation
    return annotation


def _child(annotation: Any, part: str | int) -> Any:
    """The annotation of `part` inside a value of `annotation` (Any where not known)."""
    current = _inner(annotation)
    if isinstance(part, str) and isinstance(current, type) and issubclass(current, BaseModel):
        field = current.model_fields.get(part)
        return field.annotation if field else Any
    args = typing.get_args(current)
    return args[-1] if typing.get_origin(current) in (list, tuple, dict) and args else Any


def _format_loc(loc: tuple[str | int, ...], model: type[BaseModel]) -> str:
    """`cases[2].shape` for a list's item, `measurements.8.time_ms` for a mapping's key: as the
    YAML file reads."""
    text = ""
    current: Any = model
    for part in loc:
        keyed = typing.get_origin(_inner(current)) is dict
        if isinstance(part, int) and not keyed:
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
        current = _child(current, part)
    return text or "(top level)"


def describe(error: Any, model: type[BaseModel]) -> str:
    """One validation error of `model` in words: where in the document (as keys), and what is
    wrong or allowed there."""
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    kind = error["type"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        allowed = ", ".join(sorted(parent.model_fields)) if parent else "?"
        return f"{_format_loc(loc, model)}: unknown key (allowed here: {allowed})"
    if kind == "missing":
        return f"{_format_loc(loc, model)}: required key is missing"
    message = str(error["msg"]).removeprefix("Value error, ")
    got = error.get("input")
    shown = "" if isinstance(got, dict | list) or kind.endswith("_error") else f" (got {got!r})"
    return f"{_format_loc(loc, model)}: {message}{shown}"


M = typing.TypeVar("M", bound=BaseModel)
_SHOWN = 5
"""Problems named in one message; more are counted."""


def parse_document(document: YamlDocument, model: type[M]) -> M:
    """Validate a YAML document against `model`; the first error becomes a one-line GraderError."""
    if not isinstance(document.data, dict):
        raise GraderError(f"{document.path}: expected a mapping of keys at the top level")
    try:
        return model.model_validate(document.data)
    except ValidationError as exc:
        # every problem, each once with its line (the first with the file), on one line
        said: list[str] = []
        for error in exc.errors():
            where = document.where(tuple(error["loc"]))
            where = where if not said else where.replace(f"{document.path}:", "line ", 1)
            problem = f"{where}: {describe(error, model)}"
            if problem not in said:
                said.append(problem)
        shown = said[:_SHOWN]
        more = f"; and {len(said) - _SHOWN} more" if len(said) > _SHOWN else ""
        raise GraderError("; ".join(shown) + more) from None

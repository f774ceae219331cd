"""The reference page for course.yaml and spec.yaml, generated from the models in course.py so
that the schema is written once."""

from __future__ import annotations

import typing

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from grader.course import (
    BaselineSpec,
    CaseSpec,
    CompileSpec,
    CorrectnessSpec,
    CourseExercise,
    CourseSpec,
    ExerciseSpec,
    InputSpec,
    KernelSpec,
    LaunchSpec,
    PerformanceSpec,
    ThresholdSpec,
    ToleranceSpec,
)

_SECTIONS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("course.yaml", CourseSpec),
    ("course.yaml: exercises[]", CourseExercise),
    ("spec.yaml", ExerciseSpec),
    ("spec.yaml: kernel", KernelSpec),
    ("spec.yaml: launch", LaunchSpec),
    ("spec.yaml: compile", CompileSpec),
    ("spec.yaml: correctness", CorrectnessSpec),
    ("spec.yaml: correctness.inputs", InputSpec),
    ("spec.yaml: correctness.tolerance", ToleranceSpec),
    ("spec.yaml: correctness.cases[]", CaseSpec),
    ("spec.yaml: performance", PerformanceSpec),
    ("spec.yaml: performance.baseline", BaselineSpec),
    ("spec.yaml: performance.default and performance.gpus.*", ThresholdSpec),
)


def _type_name(annotation: object) -> str:
    text = (
        str(annotation).replace("typing.", "").replace("Annotated[int, Strict(strict=True)]", "int")
    )
    if isinstance(annotation, type):
        text = annotation.__name__
    for _, model in _SECTIONS:
        text = text.replace(f"grader.course.{model.__name__}", model.__name__)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        text = " | ".join(repr(a) for a in typing.get_args(annotation))
    return text


def _default(field: FieldInfo) -> str:
    if field.default is not PydanticUndefined:
        return f"`{field.default!r}`" if field.default is not None else "none"
    if field.default_factory is not None:
        return "see its section"
    return "**required**"


def render() -> str:
    lines = [
        "# course.yaml and spec.yaml reference",
        "",
        "Generated from `grader/course.py` by `grader spec-docs`; do not edit by hand.",
        "Unknown keys are errors. Every error names the file, the line and the key.",
    ]
    for title, model in _SECTIONS:
        doc = (model.__doc__ or "").strip().splitlines()[0]
        lines += [
            "",
            f"## {title}",
            "",
            doc,
            "",
            "| key | type | default | meaning |",
            "|---|---|---|---|",
        ]
        for name, field in model.model_fields.items():
            meaning = (field.description or "").replace("|", "\\|")
            lines.append(
                f"| `{name}` | `{_type_name(field.annotation)}` | {_default(field)} | {meaning} |"
            )
    return "\n".join(lines) + "\n"

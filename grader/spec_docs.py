"""The reference page for course.yaml and spec.yaml (docs/spec.md), generated from the models in
grader/spec/ and course.py so that the schema is written once."""

from __future__ import annotations

import re
import typing

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from grader.course import CourseExercise, CourseSpec, LatePolicy
from grader.spec import (
    AnswersSpec,
    BaselineSpec,
    CaseSpec,
    CompileSpec,
    CorrectnessSpec,
    ExerciseSpec,
    InputSpec,
    KernelSpec,
    LaunchSpec,
    PerformanceSpec,
    ProfileSpec,
    ReviewSpec,
    Rubric,
    RubricItem,
    SweepSpec,
    ThresholdSpec,
    ToleranceSpec,
)

_SECTIONS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("course.yaml", CourseSpec),
    ("course.yaml: exercises[]", CourseExercise),
    ("course.yaml: deadlines", LatePolicy),
    ("spec.yaml", ExerciseSpec),
    ("spec.yaml: kernel", KernelSpec),
    ("spec.yaml: launch", LaunchSpec),
    ("spec.yaml: compile", CompileSpec),
    ("spec.yaml: correctness", CorrectnessSpec),
    ("spec.yaml: correctness.inputs", InputSpec),
    ("spec.yaml: correctness.tolerance", ToleranceSpec),
    ("spec.yaml: correctness.cases[]", CaseSpec),
    ("spec.yaml: performance", PerformanceSpec),
    ("spec.yaml: performance.baseline, profile.naive and profile.tiled", BaselineSpec),
    ("spec.yaml: performance.default and performance.gpus.*", ThresholdSpec),
    ("spec.yaml: sweep", SweepSpec),
    ("spec.yaml: profile", ProfileSpec),
    ("spec.yaml: answers", AnswersSpec),
    ("spec.yaml: answers.review", ReviewSpec),
    ("solutions/EXERCISE/rubric.yaml", Rubric),
    ("solutions/EXERCISE/rubric.yaml: items[]", RubricItem),
)
"""Every model of course.yaml and spec.yaml, under the keys where it is found
(tests/test_spec_docs.py checks that none is left out)."""


def _type_name(annotation: object) -> str:
    text = (
        str(annotation).replace("typing.", "").replace("Annotated[int, Strict(strict=True)]", "int")
    )
    if isinstance(annotation, type):
        text = annotation.__name__
    for _, model in _SECTIONS:
        text = re.sub(rf"grader(\.\w+)*\.{model.__name__}\b", model.__name__, text)
    optional = re.fullmatch(r"Optional\[(.*)\]", text)
    if optional:
        text = f"{optional.group(1)} | None"
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        text = " | ".join(repr(a) for a in typing.get_args(annotation))
    return text


def _cell(text: str) -> str:
    """`text` in a table cell: a | would end the cell, inside a code span too."""
    return text.replace("|", "\\|")


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
        "Generated from `grader/spec/` and `grader/course.py` by `grader spec-docs`; "
        "do not edit by hand.",
        "Unknown keys are errors. Every error names the file, the line and the key.",
    ]
    for title, model in _SECTIONS:
        doc = " ".join((model.__doc__ or "").strip().split("\n\n")[0].split())  # 1st paragraph
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
            meaning = _cell(field.description or "")
            kind = _cell(_type_name(field.annotation))
            lines.append(f"| `{name}` | `{kind}` | {_default(field)} | {meaning} |")
    return "\n".join(lines) + "\n"

"""An exercise's spec.yaml -> typed models. The schema lives here, once: `parts` (kernel,
launch, shapes, correctness), `timed` (performance, sweep, profile, answers), `exercise` (the
whole spec, its list of checks, load_spec)."""

from grader.spec.exercise import CheckName, ExerciseSpec, load_spec
from grader.spec.parts import (
    CaseSpec,
    CompileSpec,
    CorrectnessSpec,
    InputSpec,
    KernelSpec,
    LaunchSpec,
    Shape,
    ShapeText,
    SpecModel,
    ToleranceSpec,
    check_shape,
    parse_shape,
)
from grader.spec.timed import (
    AnswersSpec,
    BaselineSpec,
    PerformanceSpec,
    ProfileSpec,
    ReviewSpec,
    Rubric,
    RubricItem,
    SweepSpec,
    ThresholdSpec,
)

__all__ = [
    "AnswersSpec",
    "BaselineSpec",
    "CaseSpec",
    "CheckName",
    "CompileSpec",
    "CorrectnessSpec",
    "ExerciseSpec",
    "InputSpec",
    "KernelSpec",
    "LaunchSpec",
    "PerformanceSpec",
    "ProfileSpec",
    "ReviewSpec",
    "Rubric",
    "RubricItem",
    "Shape",
    "ShapeText",
    "SpecModel",
    "SweepSpec",
    "ThresholdSpec",
    "ToleranceSpec",
    "check_shape",
    "load_spec",
    "parse_shape",
]

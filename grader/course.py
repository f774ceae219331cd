"""course.yaml and spec.yaml -> typed models. The schema lives here, once.

Every key is declared with a description; unknown keys and wrong types are errors that name the
file, the line, the key and what is allowed.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    field_validator,
    model_validator,
)

from grader.errors import GraderError
from grader.schema_errors import parse_document
from grader.yaml_source import read_yaml

# Spec-provided defines become `-DNAME=value` for NVRTC. NVRTC's built-in headers use short
# template parameter names (`-DT=16` breaks them), so a define must look like TILE_SIZE.
_DEFINE_NAME = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$")
_SHAPE = re.compile(r"^\s*(\d+)\s*x\s*(\d+)\s*x\s*(\d+)\s*$")
_KERNEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXERCISE_ID = re.compile(r"^ex[0-9]+$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class KernelSpec(_Model):
    """Which kernel to compile and how."""

    file: str = Field(
        "kernel.cu", description="The student's source file, in the exercise directory."
    )
    name: str = Field(description="Name of the __global__ function to launch.")
    defines: dict[str, int] = Field(
        default_factory=dict,
        description="Preprocessor defines passed to the compiler, e.g. {TILE_SIZE: 16}.",
    )

    @field_validator("name")
    @classmethod
    def _name_is_identifier(cls, value: str) -> str:
        if not _KERNEL_NAME.match(value):
            raise ValueError(f"{value!r} is not a C identifier")
        return value

    @field_validator("defines")
    @classmethod
    def _define_names(cls, value: dict[str, int]) -> dict[str, int]:
        for name in value:
            if not _DEFINE_NAME.match(name):
                raise ValueError(
                    f"define {name!r} must be UPPER_CASE with an underscore (like TILE_SIZE), "
                    "so it cannot collide with names in NVRTC's built-in headers"
                )
        return value


class LaunchSpec(_Model):
    """The launch geometry, fixed by the exercise: the grid follows from the shape of C."""

    # strict=False on the pair only, so that a YAML list becomes a tuple; the items stay strict.
    block: tuple[StrictInt, StrictInt] = Field(
        strict=False, description="Threads per block as [x, y] (x walks columns)."
    )
    tile: tuple[StrictInt, StrictInt] = Field(
        strict=False,
        description="Elements of C one block covers as [columns, rows]; "
        "grid = [ceil(N / columns), ceil(M / rows)].",
    )

    @model_validator(mode="after")
    def _positive(self) -> LaunchSpec:
        for key in ("block", "tile"):
            if any(v <= 0 for v in getattr(self, key)):
                raise ValueError(f"{key} values must be positive")
        if self.block[0] * self.block[1] > 1024:
            raise ValueError("a block holds at most 1024 threads")
        return self


class Shape(typing.NamedTuple):
    """A GEMM shape: A is m x k, B is k x n, C is m x n."""

    m: int
    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.m}x{self.k}x{self.n}"


def check_shape(value: str) -> str:
    """`value` if it reads 'MxKxN' with positive dimensions up to 16384, else ValueError."""
    match = _SHAPE.match(value)
    if not match or any(int(g) <= 0 for g in match.groups()):
        raise ValueError(f"expected 'MxKxN' with positive integers, got {value!r}")
    if any(int(g) > 16384 for g in match.groups()):
        raise ValueError(f"{value!r}: each dimension must be at most 16384")
    return value


def parse_shape(value: str) -> Shape:
    """The dimensions of a shape that check_shape accepted."""
    match = _SHAPE.match(value)
    assert match is not None, value  # checked by the validator
    m, k, n = (int(g) for g in match.groups())
    return Shape(m, k, n)


# A shape as written in a spec: 'MxKxN', checked where it is read.
ShapeText = Annotated[str, AfterValidator(check_shape)]


class CaseSpec(_Model):
    """One correctness case."""

    shape: ShapeText = Field(description="'MxKxN': A is MxK, B is KxN, C is MxN.")
    name: str | None = Field(None, description="A label shown in reports (defaults to the shape).")
    repeat: int = Field(1, ge=1, le=20, description="Launches on fresh outputs; each is checked.")

    @property
    def dims(self) -> Shape:
        return parse_shape(self.shape)

    @property
    def label(self) -> str:
        return self.name or str(self.dims)


class InputSpec(_Model):
    """How the inputs are drawn (fresh on every run, from a printed seed)."""

    distribution: Literal["uniform"] = Field("uniform", description="Only 'uniform' for now.")
    low: float = Field(-1.0, description="Lower bound of the uniform draw.")
    high: float = Field(1.0, description="Upper bound of the uniform draw.")

    @model_validator(mode="after")
    def _ordered(self) -> InputSpec:
        if not self.low < self.high:
            raise ValueError("low must be below high")
        return self


class ToleranceSpec(_Model):
    """Elementwise bound |C - C_ref| <= factor * K * 2^-24 * (|A| |B|)."""

    factor: float = Field(2.0, gt=0, le=1000, description="The constant c of the error bound.")


class CorrectnessSpec(_Model):
    """Correctness: every case must match the float64 reference within the tolerance."""

    points: int = Field(ge=0, description="Points for correctness, split evenly over the cases.")
    inputs: InputSpec = Field(
        default_factory=lambda: InputSpec(), description="How A and B are drawn."
    )
    tolerance: ToleranceSpec = Field(
        default_factory=lambda: ToleranceSpec(), description="The error bound's constant."
    )
    cases: list[CaseSpec] = Field(min_length=1, description="Shapes to check, smallest first.")


class CompileSpec(_Model):
    """The compile check."""

    points: int = Field(ge=0, description="Points for a kernel that compiles.")


class BaselineSpec(_Model):
    """The kernel a student's is timed against, from reference/."""

    file: str = Field(description="Path under the course root, e.g. reference/tiled.cu.")
    name: str = Field(description="Name of its __global__ function.")
    defines: dict[str, int] = Field(default_factory=dict, description="Its defines.")
    launch: LaunchSpec = Field(description="Its launch geometry.")


class ThresholdSpec(_Model):
    """Speedup thresholds (baseline median time / student median time) for one kind of GPU."""

    min_speedup: float = Field(gt=0, le=100, description="Below this the check fails.")
    target_speedup: float | None = Field(
        None,
        gt=0,
        le=100,
        description="With it, points grow linearly from 0 at min_speedup to all at this speedup.",
    )
    note: str = Field("", description="Where the numbers come from (calibration run, date).")

    @model_validator(mode="after")
    def _ordered(self) -> ThresholdSpec:
        if self.target_speedup is not None and self.target_speedup <= self.min_speedup:
            raise ValueError("target_speedup must be above min_speedup")
        return self


class PerformanceSpec(_Model):
    """A speedup check, timed on the GPU against a baseline in the same run, interleaved."""

    points: int = Field(ge=0, description="Points for reaching the threshold.")
    shape: ShapeText = Field(description="'MxKxN' timed for both kernels.")
    baseline: BaselineSpec
    default: ThresholdSpec = Field(description="Thresholds for GPUs with no entry of their own.")
    gpus: dict[str, ThresholdSpec] = Field(
        default_factory=dict,
        description="Thresholds by GPU name (as the driver reports it) or 'sm_XY'; "
        "`grader calibrate --write` records them.",
    )
    rounds: int = Field(5, ge=1, le=100, description="Timed launches per kernel in each block.")
    min_pairs: int = Field(
        6, ge=2, le=200, description="Interleaved blocks (A B A B ...) at least."
    )
    rse_target: float = Field(
        0.003, gt=0, le=0.5, description="Stop once the speedup's relative standard error is below."
    )
    time_cap_s: float = Field(15.0, gt=0, le=600, description="Stop timing after this long.")

    @property
    def dims(self) -> Shape:
        return parse_shape(self.shape)


class SweepSpec(_Model):
    """The kernel built for several values of one define (each block TILE x TILE threads covering
    TILE x TILE of C), checked for correctness at each, timed at each on a GPU."""

    define: str = Field(description="The define swept, e.g. TILE_SIZE.")
    values: list[StrictInt] = Field(min_length=2, description="Its values, e.g. [8, 16, 32].")
    shape: ShapeText = Field(description="'MxKxN' at which every value is timed.")
    probe: StrictInt | None = Field(
        None, description="A value the grader also tries to launch (64): evidence for the answers."
    )
    points: int = Field(ge=0, description="Points for timing every value with a right result.")
    rounds: int = Field(5, ge=1, le=100, description="Timed launches per value in each block.")
    min_blocks: int = Field(4, ge=2, le=100, description="Interleaved blocks at least.")
    time_cap_s: float = Field(20.0, gt=0, le=600, description="Stop timing after this long.")

    @property
    def dims(self) -> Shape:
        return parse_shape(self.shape)

    @model_validator(mode="after")
    def _values(self) -> SweepSpec:
        if any(v <= 0 or v > 32 for v in self.values):
            raise ValueError("values must be between 1 and 32 (a block holds at most 1024 threads)")
        if len(set(self.values)) != len(self.values):
            raise ValueError("values must differ")
        return self


class ProfileSpec(_Model):
    """Kernels profiled with Nsight Compute (ncu) at one square size: evidence for the answers."""

    size: int = Field(gt=0, le=16384, description="n: each kernel multiplies two n x n matrices.")
    naive: BaselineSpec = Field(description="The naive kernel, from reference/.")
    tiled: BaselineSpec = Field(description="The tiled kernel, from reference/.")
    student: bool = Field(
        True, description="Profile the student's own kernel too (once it passes correctness)."
    )
    time_limit_s: float = Field(
        180.0, gt=0, le=3600, description="Wall-clock limit for the whole ncu run, in seconds."
    )


class AnswersSpec(_Model):
    """Questions the student answers in a YAML file, graded against the grader's own evidence."""

    file: str = Field("answers.yaml", description="Next to the kernel file.")
    kind: Literal["tile_sweep", "profiling"] = Field(
        description="Which questions: 'tile_sweep' (ex2) or 'profiling' (ex3)."
    )
    points: int = Field(ge=0, description="Points, split evenly over the graded questions.")
    figure_tolerance: float = Field(
        0.25, gt=0, le=1, description="A figure may differ from the grader's by this share."
    )
    tie_tolerance: float = Field(
        0.03, ge=0, le=0.5, description="Values this close in time are a tie: either is 'fastest'."
    )


CheckName = Literal["compile", "correctness", "performance", "sweep", "profile", "answers"]
"""The kinds of check (grader/checks/registry.py): compile and correctness always, and one per
optional section of the spec that configures it."""
_SECTION_CHECKS: tuple[CheckName, ...] = ("performance", "sweep", "profile", "answers")


class ExerciseSpec(_Model):
    """An exercise's spec.yaml."""

    title: str = Field(description="Shown in reports.")
    checks: list[CheckName] | None = Field(
        None,
        strict=False,
        description="The checks this exercise runs: compile, correctness, and one for each of "
        "the sections performance, sweep, profile and answers it has; the grader runs them in "
        "the order their needs give. Default: compile, correctness and one per section present.",
    )
    kernel: KernelSpec = Field(description="The kernel to compile: file, name, defines.")
    launch: LaunchSpec = Field(description="Threads per block and the tile of C a block covers.")
    time_limit_s: float = Field(
        60.0, gt=0, le=3600, description="Wall-clock limit for each runtime check, in seconds."
    )
    compile: CompileSpec = Field(description="Points for compiling.")
    correctness: CorrectnessSpec = Field(description="Cases, inputs, tolerance and points.")
    performance: PerformanceSpec | None = Field(
        None, description="A speedup check against a baseline (needs a GPU; skipped on the CPU)."
    )
    sweep: SweepSpec | None = Field(None, description="Build, check and time several tile sizes.")
    profile: ProfileSpec | None = Field(
        None, description="Kernels profiled with Nsight Compute (needs a GPU and ncu)."
    )
    answers: AnswersSpec | None = Field(None, description="Questions answered in a YAML file.")

    @model_validator(mode="after")
    def _sweep_define_is_the_kernels(self) -> ExerciseSpec:
        if self.sweep and self.sweep.define not in self.kernel.defines:
            raise ValueError(f"sweep.define {self.sweep.define!r} must be one of kernel.defines")
        return self

    @model_validator(mode="after")
    def _answers_have_their_evidence(self) -> ExerciseSpec:
        if self.answers and self.answers.kind == "tile_sweep" and self.sweep is None:
            raise ValueError("answers of kind 'tile_sweep' need a sweep section")
        if self.answers and self.answers.kind == "profiling" and self.profile is None:
            raise ValueError("answers of kind 'profiling' need a profile section")
        return self

    @model_validator(mode="after")
    def _checks_match_sections(self) -> ExerciseSpec:
        if self.checks is None:
            return self
        if len(set(self.checks)) != len(self.checks):
            raise ValueError("checks: each check may be listed once")
        for required in ("compile", "correctness"):
            if required not in self.checks:
                raise ValueError(f"checks: every exercise has the {required!r} check; list it")
        for key in _SECTION_CHECKS:
            has_section = getattr(self, key) is not None
            if key in self.checks and not has_section:
                raise ValueError(f"checks lists {key!r} but the spec has no section {key!r}")
            if has_section and key not in self.checks:
                raise ValueError(f"the spec has the section {key!r} but checks does not list it")
        return self

    @property
    def check_names(self) -> tuple[CheckName, ...]:
        """The checks listed, or by default compile, correctness and one per section present."""
        if self.checks is not None:
            return tuple(self.checks)
        present = tuple(key for key in _SECTION_CHECKS if getattr(self, key) is not None)
        return ("compile", "correctness", *present)

    @property
    def max_score(self) -> int:
        extras = [part.points for part in (self.performance, self.sweep, self.answers) if part]
        return self.compile.points + self.correctness.points + sum(extras)


class CourseExercise(_Model):
    """One entry of course.yaml's exercise list."""

    id: str = Field(description="Short id used on the command line: ex1, ex2, ...")
    dir: str = Field(description="Directory under exercises/ (and solutions/).")
    title: str = Field(description="Shown in reports.")
    points: int = Field(ge=0, description="Must equal the total of the exercise's spec.")

    @field_validator("id")
    @classmethod
    def _id_format(cls, value: str) -> str:
        if not _EXERCISE_ID.match(value):
            raise ValueError(f"expected an id like 'ex1', got {value!r}")
        return value

    @field_validator("dir")
    @classmethod
    def _plain_dir(cls, value: str) -> str:
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", value):
            shown = value if len(value) <= 60 else value[:60] + "..."
            raise ValueError(
                f"expected a plain directory name of at most 100 characters, got {shown!r}"
            )
        return value


class CourseSpec(_Model):
    """The course: its title and its exercises, in the order students meet them."""

    title: str = Field(description="The course's name, shown by `grader list`.")
    exercises: list[CourseExercise] = Field(min_length=1, description="At least one exercise.")


@dataclass(frozen=True)
class Exercise:
    """An exercise of the course with its spec loaded and its paths resolved."""

    id: str
    dir_name: str
    title: str
    points: int
    spec: ExerciseSpec
    directory: Path
    solution_directory: Path

    @property
    def stub(self) -> Path:
        return self.directory / self.spec.kernel.file

    @property
    def solution(self) -> Path:
        return self.solution_directory / self.spec.kernel.file

    @property
    def wrong_variants(self) -> list[Path]:
        """Known-wrong kernels (`*.cu`) and, where the exercise asks questions, answers files
        (`*.yaml`, graded with the solution's kernel)."""
        wrong = self.solution_directory / "wrong"
        return sorted([*wrong.glob("*.cu"), *wrong.glob("*.yaml")])


@dataclass(frozen=True)
class Course:
    root: Path
    title: str
    exercises: tuple[Exercise, ...]

    def find(self, key: str) -> Exercise:
        """An exercise by id (`ex4`) or directory name; a GraderError listing the choices."""
        for exercise in self.exercises:
            if key in (exercise.id, exercise.dir_name):
                return exercise
        choices = ", ".join(f"{e.id} ({e.dir_name})" for e in self.exercises)
        raise GraderError(
            f"no exercise {key!r} in {self.root / 'course.yaml'}; choose one of: {choices}"
        )


def load_spec(path: Path) -> ExerciseSpec:
    return parse_document(read_yaml(path), ExerciseSpec)


def load_course(root: Path) -> Course:
    """Load course.yaml under `root` and every exercise's spec, checking they agree."""
    course_file = root / "course.yaml"
    document = read_yaml(course_file)
    course = parse_document(document, CourseSpec)
    exercises: list[Exercise] = []
    seen: set[str] = set()
    for index, entry in enumerate(course.exercises):
        where = document.where(("exercises", index))
        for key in (entry.id, entry.dir):
            if key in seen:
                raise GraderError(f"{where}: {key!r} appears twice in the exercise list")
            seen.add(key)
        directory = root / "exercises" / entry.dir
        spec_file = directory / "spec.yaml"
        if not spec_file.is_file():
            raise GraderError(f"{where}: exercise {entry.id}: {spec_file} not found")
        spec = load_spec(spec_file)
        if spec.max_score != entry.points:
            raise GraderError(
                f"{where}: exercise {entry.id} is worth {entry.points} points here but its spec "
                f"{spec_file} adds up to {spec.max_score}"
            )
        exercises.append(
            Exercise(
                id=entry.id,
                dir_name=entry.dir,
                title=entry.title,
                points=entry.points,
                spec=spec,
                directory=directory,
                solution_directory=root / "solutions" / entry.dir,
            )
        )
    return Course(root=root, title=course.title, exercises=tuple(exercises))

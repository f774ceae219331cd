"""The parts of an exercise's spec that measure on a GPU or ask questions: the performance
check (its baseline and thresholds), the tile-size sweep, the Nsight Compute profile and the
answers file."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt, model_validator

from grader.spec.parts import LaunchSpec, Shape, ShapeText, SpecModel, parse_shape


class BaselineSpec(SpecModel):
    """The kernel a student's is timed against, from reference/."""

    file: str = Field(description="Path under the course root, e.g. reference/tiled.cu.")
    name: str = Field(description="Name of its __global__ function.")
    defines: dict[str, int] = Field(default_factory=dict, description="Its defines.")
    launch: LaunchSpec = Field(description="Its launch geometry.")


class ThresholdSpec(SpecModel):
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


class PerformanceSpec(SpecModel):
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


class SweepSpec(SpecModel):
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


class ProfileSpec(SpecModel):
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


class RubricItem(SpecModel):
    """One thing a written answer earns points for, as the reviewer ticks it."""

    id: str = Field(
        pattern=r"^[a-z][a-z0-9_]{0,30}$",
        description="A short name, lower case (the column of the review sheet): 'l2_fits'.",
    )
    points: float = Field(gt=0, le=1000, description="What the answer earns when it says this.")
    says: str = Field(min_length=1, description="What the answer must say, for the reviewer.")


class ReviewSpec(SpecModel):
    """The free-text explanation graded by a person (`grader review`) with a rubric: the answer
    earns the points of each item the reviewer ticks; until then it is pending, never 0. The
    rubric lives with the solutions (instructors only): it tells what a good answer says."""

    points: int = Field(ge=1, description="The explanation's points: the rubric's items' sum.")
    question: str = Field(
        min_length=1,
        description="What the explanation answers, as the answers template asks it: an "
        "explanation left as this question is no answer (0, not pending).",
    )
    rubric: str = Field(
        "rubric.yaml",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.yaml$",
        description="The rubric's file in the exercise's solutions folder (never released).",
    )


class Rubric(SpecModel):
    """A rubric file (solutions/EXERCISE/rubric.yaml): the items of a written answer."""

    items: list[RubricItem] = Field(min_length=1, description="The items, in reading order.")

    @model_validator(mode="after")
    def _ids_once(self) -> Rubric:
        ids = [item.id for item in self.items]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"the id {twice[0]!r} is given twice")
        return self

    @property
    def points(self) -> float:
        return round(sum(item.points for item in self.items), 6)


class AnswersSpec(SpecModel):
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
    review: ReviewSpec | None = Field(
        None,
        description="The explanation, graded by a person with a rubric (none: kept, no points).",
    )

    @property
    def total_points(self) -> int:
        """The graded questions' points and the reviewed explanation's."""
        return self.points + (self.review.points if self.review else 0)

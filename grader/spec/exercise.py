"""An exercise's spec.yaml as a whole: its parts, the checks it lists, and their agreement."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from grader.schema_errors import parse_document
from grader.spec.parts import CompileSpec, CorrectnessSpec, KernelSpec, LaunchSpec, SpecModel
from grader.spec.timed import AnswersSpec, PerformanceSpec, ProfileSpec, SweepSpec
from grader.yaml_source import read_yaml

CheckName = Literal["compile", "correctness", "performance", "sweep", "profile", "answers"]
"""The kinds of check (grader/checks/registry.py): compile and correctness always, and one per
optional section of the spec that configures it."""
_SECTION_CHECKS: tuple[CheckName, ...] = ("performance", "sweep", "profile", "answers")


class ExerciseSpec(SpecModel):
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
        extras = [part.points for part in (self.performance, self.sweep) if part]
        answers = self.answers.total_points if self.answers else 0
        return self.compile.points + self.correctness.points + sum(extras) + answers


def load_spec(path: Path) -> ExerciseSpec:
    return parse_document(read_yaml(path), ExerciseSpec)

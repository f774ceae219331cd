"""The building blocks of an exercise's spec.yaml: the kernel, its launch, shapes and the
correctness cases. Every key is declared with a description; unknown keys and wrong types are
errors that name the file, the line, the key and what is allowed."""

from __future__ import annotations

import re
import typing
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

# Spec-provided defines become `-DNAME=value` for NVRTC. NVRTC's built-in headers use short
# template parameter names (`-DT=16` breaks them), so a define must look like TILE_SIZE.
_DEFINE_NAME = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$")
_SHAPE = re.compile(r"^\s*(\d+)\s*x\s*(\d+)\s*x\s*(\d+)\s*$")
_KERNEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SpecModel(BaseModel):
    """Every spec model: unknown keys are errors, values are frozen, types strict."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class KernelSpec(SpecModel):
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


class LaunchSpec(SpecModel):
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


class CaseSpec(SpecModel):
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


class InputSpec(SpecModel):
    """How the inputs are drawn (fresh on every run, from a printed seed)."""

    distribution: Literal["uniform"] = Field("uniform", description="Only 'uniform' for now.")
    low: float = Field(-1.0, description="Lower bound of the uniform draw.")
    high: float = Field(1.0, description="Upper bound of the uniform draw.")

    @model_validator(mode="after")
    def _ordered(self) -> InputSpec:
        if not self.low < self.high:
            raise ValueError("low must be below high")
        return self


class ToleranceSpec(SpecModel):
    """Elementwise bound |C - C_ref| <= factor * K * 2^-24 * (|A| |B|)."""

    factor: float = Field(2.0, gt=0, le=1000, description="The constant c of the error bound.")


class CorrectnessSpec(SpecModel):
    """Correctness: every case must match the float64 reference within the tolerance."""

    points: int = Field(ge=0, description="Points for correctness, split evenly over the cases.")
    inputs: InputSpec = Field(
        default_factory=lambda: InputSpec(), description="How A and B are drawn."
    )
    tolerance: ToleranceSpec = Field(
        default_factory=lambda: ToleranceSpec(), description="The error bound's constant."
    )
    cases: list[CaseSpec] = Field(min_length=1, description="Shapes to check, smallest first.")


class CompileSpec(SpecModel):
    """The compile check."""

    points: int = Field(ge=0, description="Points for a kernel that compiles.")

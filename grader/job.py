"""A grading job: what the parent sends its grading child, as JSON on the child's stdin."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Job:
    """One submission to one exercise, and what earlier children of the same grading did."""

    spec: dict[str, Any]
    """The exercise's spec as the parent parsed it (ExerciseSpec.model_dump): the child never
    reads spec.yaml again."""
    source_text: str
    display_name: str
    seed: int
    backend: str = "auto"
    """`gpu`, `cpu` or `auto` (the GPU when one is usable, else the CPU)."""
    done: tuple[str, ...] = ()
    """Checks already reported by an earlier child; they are not run again."""
    any_failed: bool = False
    """Whether a check reported by an earlier child failed (then nothing is timed)."""
    course_root: str = "."
    """Where the spec's paths (the performance baseline) are relative to."""
    keep_dir: str = ""
    """Where the performance check keeps its pytest-benchmark JSON."""
    answers_text: str | None = None
    """The answers file's text, where the exercise asks questions and the file exists."""
    answers_error: str = ""
    """Why the answers file could not be read, where it could not."""
    env: dict[str, str] = field(default_factory=dict)
    """Set in the child before any GPU work (a batch lane's GPU and lock)."""
    first_failure_stops: bool = False
    """After the first result that fails (or errs), nothing else runs (`grader check -x`)."""
    selection: str = ""
    """`grader check -k EXPR`: only the results whose names it matches run ('' for all)."""
    defer_timing: bool = False
    """Stop before the first check that takes the GPU alone (exit EXIT_TIMING_DEFERRED): a
    batch lane runs every correctness check first, then the timed ones, none waiting on another."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        return cls(**{**data, "done": tuple(data["done"])})

"""A grading job: what the parent sends its grading child, as JSON on the child's stdin."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from grader.expectations import Expectation


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
    stop_at: tuple[Expectation, ...] = ()
    """After the first failed result that bears out one of these, nothing else runs (validate
    grading a known-wrong variant: its declared reason is found)."""
    reason_found: bool = False
    """Whether a result reported by an earlier child bore out one of `stop_at`."""
    selection: str = ""
    """`grader check -k EXPR`: only the results whose names it matches run ('' for all)."""
    defer_timing: bool = False
    """Stop before the first check that takes the GPU alone (exit EXIT_TIMING_DEFERRED): a
    batch lane runs every correctness check first, then the timed ones, none waiting on another."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        stop_at = tuple(Expectation(**e) for e in data["stop_at"])
        return cls(**{**data, "done": tuple(data["done"]), "stop_at": stop_at})

    def bears_out(self, result_kind: str, message: str) -> bool:
        """Whether a failed result of this kind and message is one `stop_at` looks for."""
        return any(e.shown_by(result_kind, message) for e in self.stop_at)

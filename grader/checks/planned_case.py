"""One planned correctness check: which case, for which build, for how many points. Apart from
the check itself (grader.checks.correctness), which needs numpy: a process that only plans the
checks (the parent of `grader check`, `grader review`, `grader list`) never imports it."""

from __future__ import annotations

from dataclasses import dataclass

from grader.spec import CaseSpec, LaunchSpec


@dataclass(frozen=True)
class CorrectnessCase:
    """A planned correctness check."""

    index: int
    case: CaseSpec
    max_score: float
    variant: str = ""
    """For a sweep: which build, e.g. `TILE_SIZE=8`; empty for the exercise's own build."""
    defines: tuple[tuple[str, int], ...] = ()
    """The build's defines where they differ from the spec's."""
    launch: LaunchSpec | None = None
    """The build's launch where it differs from the spec's."""

    @property
    def name(self) -> str:
        variant = f"{self.variant} " if self.variant else ""
        return f"correctness {variant}{self.case.label}"

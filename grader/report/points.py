"""The points of an exercise in words, from its spec alone: the one source that every README
and report renders, so that no text can give other numbers than the grader awards."""

from __future__ import annotations

from grader.checks.base import PlannedCheck
from grader.checks.explanation import EXPLANATION
from grader.checks.registry import plan
from grader.checks.sweep import CHECK as SWEEP_CHECK
from grader.spec import ExerciseSpec

START = "<!-- points: from spec.yaml; edit the spec, then `grader spec-docs --write` -->"
END = "<!-- /points -->"

_WHAT = {
    "compile": "compiling",
    "correctness": "correctness",
    "performance": "performance",
    "sweep": "the tile sweep's timing",
    "profile": "the profile",
    "answers": "answers.yaml",
    "review": "the explanation (graded by hand with a rubric)",
}


def points_summary(spec: ExerciseSpec) -> str:
    """e.g. `10 for compiling, 70 for correctness (10 cases of 7), 20 for performance: 100`."""
    groups: dict[str, list[PlannedCheck]] = {}
    for planned in plan(spec):
        if planned.max_score > 0:
            key = planned.kind.value
            if planned.name == EXPLANATION:
                key = "review"
            elif planned.name == SWEEP_CHECK:  # a performance check by kind, the sweep by name
                key = "sweep"
            groups.setdefault(key, []).append(planned)
    parts = []
    for kind, checks in groups.items():
        total = round(sum(c.max_score for c in checks), 1)
        part = f"{total:g} for {_WHAT.get(kind, kind)}"
        if len(checks) > 1:
            each = {round(c.max_score, 2) for c in checks}
            split = f" of {next(iter(each)):.3g}" if len(each) == 1 else ""
            part += f" ({len(checks)} {'cases' if kind == 'correctness' else 'parts'}{split})"
        parts.append(part)
    total = round(sum(p.max_score for p in plan(spec)), 1)
    return f"Points: {', '.join(parts)}; {total:g} in all."


def points_block(spec: ExerciseSpec) -> str:
    """The README's generated block, markers included."""
    return f"{START}\n{points_summary(spec)}\n{END}"


def with_points(readme: str, spec: ExerciseSpec) -> str:
    """`readme` with its points block replaced by the spec's (unchanged where it has none)."""
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        return readme
    return readme[:start] + points_block(spec) + readme[end + len(END) :]

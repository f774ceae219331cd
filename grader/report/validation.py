"""`grader validate`'s output: a table of every graded file and its verdict with a count line, or
one JSON object (the seed, the counts and every item)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from rich.console import Console
from rich.table import Table
from rich.text import Text

_STYLE = {"ok": "green", "wrong": "bold red", "inconclusive": "yellow", "needs a GPU": "cyan"}


class Judged(Protocol):
    """One graded file and its verdict (grader/validation.py's Item)."""

    @property
    def exercise(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def detail(self) -> str: ...


def _counts(items: Sequence[Judged]) -> dict[str, int]:
    return {v: sum(1 for i in items if i.verdict == v) for v in _STYLE}


def status_line(exercise_ids: Sequence[str], jobs: int) -> str:
    """What the spinner says while the gradings run."""
    return f"validating {', '.join(exercise_ids)} ({jobs} at a time)..."


def _item(item: Judged) -> dict[str, Any]:
    names = ("exercise", "role", "file", "verdict", "detail")
    return {name: getattr(item, name) for name in names}


def validation_json(seed: int, items: Sequence[Judged]) -> str:
    document = {"seed": seed, "counts": _counts(items), "items": [_item(i) for i in items]}
    return json.dumps(document, indent=2)


def print_validation(seed: int, items: Sequence[Judged], console: Console) -> None:
    """The table of items, the counts in words, and why any are inconclusive."""
    table = Table(title=f"grader validate (seed {seed})", show_lines=False, expand=True)
    for column in ("exercise", "role", "file", "verdict", "detail"):
        table.add_column(column, overflow="fold")
    for item in items:
        table.add_row(
            item.exercise,
            item.role,
            Text(item.file),
            Text(item.verdict, style=_STYLE[item.verdict]),
            Text(item.detail),  # quotes a report's message: never markup
        )
    console.print(table)
    counts = _counts(items)
    console.print(
        f"{counts['ok']} as expected, {counts['wrong']} not as expected, "
        f"{counts['inconclusive']} inconclusive, {counts['needs a GPU']} need a GPU to judge"
    )
    if counts["inconclusive"]:
        console.print("[yellow]inconclusive: runtime checks were skipped (no usable GPU)[/yellow]")

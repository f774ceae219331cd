"""`grader validate`'s table and JSON: every item, its verdict, the counts in words."""

from __future__ import annotations

import json

from rich.console import Console

from grader.report.validation import print_validation, validation_json
from grader.validation import Item, settled

ITEMS = [
    Item("ex1", "solution", "solutions/ex1/kernel.cu", "ok", "passed 100/100"),
    Item("ex1", "wrong", "solutions/ex1/wrong/a.cu", "inconclusive", "[red]skipped[/red]"),
    Item("ex4", "wrong", "solutions/ex4/wrong/slow.cu", "needs a GPU", "timing only"),
]


def test_the_table_counts_each_verdict_and_quotes_details_literally() -> None:
    console = Console(record=True, width=200)
    print_validation(7, ITEMS, console)
    text = console.export_text()
    assert "grader validate (seed 7)" in text and "[red]skipped[/red]" in text
    assert "1 as expected, 0 not as expected, 1 inconclusive, 1 need a GPU to judge" in text
    assert "inconclusive: runtime checks were skipped (no usable GPU)" in text


def test_the_json_holds_the_seed_counts_and_items() -> None:
    data = json.loads(validation_json(7, ITEMS))
    assert data["seed"] == 7
    assert data["counts"] == {"ok": 1, "wrong": 0, "inconclusive": 1, "needs a GPU": 1}
    assert data["items"][0] == {
        "exercise": "ex1",
        "role": "solution",
        "file": "solutions/ex1/kernel.cu",
        "verdict": "ok",
        "detail": "passed 100/100",
    }


def test_a_run_is_settled_when_nothing_is_wrong_or_inconclusive() -> None:
    assert not settled(ITEMS)
    assert settled([ITEMS[0], ITEMS[2]])

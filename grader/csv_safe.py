"""Writing CSV files that a spreadsheet opens without running anything in them: a cell of text
that starts with = + - @, a tab or a carriage return would be read as a formula (a student
named "=HYPERLINK(...)" could make an instructor's spreadsheet fetch a URL), so such a cell gets
a leading single quote, as OWASP recommends. Numbers are written as numbers."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from grader.text_bounds import printable

Cell = str | int | float | None
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Cell) -> Cell:
    """`value` as a spreadsheet shows it and never evaluates it: control characters (an escape
    sequence that would repaint a terminal showing the file) written as escapes, text starting
    like a formula quoted with a leading ', numbers and None unchanged."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS):
        value = "'" + value
    return printable(value)


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> None:
    """`header` then `rows` into `path`, every cell through `safe_cell`."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow([safe_cell(c) for c in header])
        for row in rows:
            writer.writerow([safe_cell(c) for c in row])

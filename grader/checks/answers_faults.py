"""Where a value at fault sits in an answers file's data, and taking it out, so that the rest of
the file is graded (checks/answers.py's load_answers: one bad value costs its question only)."""

from __future__ import annotations

import re
from typing import Any


def _key_in(mapping: dict[Any, Any], part: str | int) -> tuple[bool, Any]:
    """The key of `mapping` that a validator's location names: itself, or the key it spelled as
    text (pydantic gives `None` and `16.5` as 'None' and '16.5')."""
    if part in mapping:
        return True, part
    for key in mapping:
        if str(key) == str(part):
            return True, key
    return False, None


def fault_at(data: dict[Any, Any], loc: tuple[str | int, ...]) -> tuple[Any, ...]:
    """Where the value at fault is, as keys into `data`: an entry of a mapping of records, else
    the top-level key; () where neither is there."""
    if not loc:
        return ()
    found, top = _key_in(data, loc[0])
    if not found:
        return ()
    head = data[top]
    if len(loc) >= 2 and isinstance(head, dict):
        inside, key = _key_in(head, loc[1])
        if inside:
            return (top, key)
    return (top,)


def drop_all(data: dict[Any, Any], faults: list[tuple[Any, ...]]) -> bool:
    """Remove each fault's value once; whether anything was removed."""
    removed = False
    tops = {fault[0] for fault in faults if len(fault) == 1}
    for fault in dict.fromkeys(faults):
        if not fault or (len(fault) == 2 and fault[0] in tops):
            continue  # nothing there, or inside a top-level value that goes whole
        holder = data if len(fault) == 1 else data.get(fault[0])
        if isinstance(holder, dict) and fault[-1] in holder:
            del holder[fault[-1]]
            removed = True
    return removed


_GROUPED_DIGITS = re.compile(r"\d,\d{3}(?!\d)")


def comma_hint(text: str, line: int | None) -> str:
    """A note for a problem on a line holding a number written with a thousands separator,
    which YAML reads as two values (`gflops: 8,014` in braces is 8 and a key 014); else ''."""
    lines = text.splitlines()
    if line is None or not 0 < line <= len(lines):
        return ""
    if not _GROUPED_DIGITS.search(lines[line - 1].split("#")[0]):  # a comment's figures are free
        return ""
    return " (a number with a comma? YAML reads 8,014 as two values: write 8014)"

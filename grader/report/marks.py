"""The words, styles and point format that every renderer of a check shares."""

from __future__ import annotations

STYLE = {
    "passed": "bold green",
    "failed": "bold red",
    "skipped": "yellow",
    "error": "bold magenta",
}
"""The rich style of each check status."""
MARK = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP", "error": "ERROR"}
"""How a check status is written for people."""


def points(value: float) -> str:
    """Points as people read them: 10, not 10.0; 2.50 where there is a fraction."""
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def verdict(passed: bool) -> str:
    return "PASSED" if passed else "FAILED"

"""The similarity check's report for the instructor: one line per flagged pair in the terminal,
and an HTML page with each pair side by side, the shared parts marked."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol


class FlaggedPair(Protocol):
    """A pair of submissions found alike (grader.batch.similarity.Pair)."""

    @property
    def first(self) -> str: ...
    @property
    def second(self) -> str: ...
    @property
    def similarity(self) -> tuple[float, float]: ...
    @property
    def slices(self) -> tuple[Any, Any]: ...


def pair_lines(
    pairs: Sequence[FlaggedPair], threshold: float, compared: int, starter: str
) -> list[str]:
    """A line per pair, then the count, naming the starter code (the stub) left out."""
    lines = [
        f"{p.first} ~ {p.second}: {100 * p.similarity[0]:.0f}% of {p.first}'s tokens and "
        f"{100 * p.similarity[1]:.0f}% of {p.second}'s are shared"
        for p in pairs
    ]
    lines.append(
        f"{len(pairs)} pair(s) of {compared} submission(s) share at least {100 * threshold:.0f}% "
        f"(names and whitespace ignored, the starter code {starter} left out): a pointer for a "
        "look, not a verdict"
    )
    return lines


GENERATOR = "grader similarity"
"""Marks a page this command wrote: only such a page is written over."""


def similarity_html(
    exercise: str,
    pairs: Sequence[FlaggedPair],
    texts: Mapping[str, str],
    mark: Callable[[str, Any], str],
    starter: str,
) -> str:
    """The side-by-side page; `mark(text, slices)` gives a text as HTML with its shared parts
    marked (escaped); `starter`: the stub whose fingerprints were left out."""
    sections = []
    for pair in pairs:
        left, right = pair.slices
        sections.append(
            f"<h2>{html.escape(pair.first)} ~ {html.escape(pair.second)}: "
            f"{100 * pair.similarity[0]:.0f}% / {100 * pair.similarity[1]:.0f}%</h2>"
            '<div class="pair">'
            f"<pre>{mark(texts[pair.first], left)}</pre>"
            f"<pre>{mark(texts[pair.second], right)}</pre></div>"
        )
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f'<meta name="generator" content="{GENERATOR}">'
        f"<title>{html.escape(exercise)}: similar submissions</title>"
        "<style>body{font-family:sans-serif}.pair{display:flex;gap:1em}"
        "pre{flex:1;overflow:auto;border:1px solid #ccc;padding:.5em;font-size:80%}"
        "mark{background:#ffe08a}</style></head><body>\n"
        f"<h1>{html.escape(exercise)}: pairs to look at (never a penalty by itself)</h1>\n"
        f"<p>What the submissions share with the starter code {html.escape(starter)} does not "
        "count.</p>\n"
        + ("\n".join(sections) or "<p>No pair over the threshold.</p>")
        + "\n</body></html>\n"
    )

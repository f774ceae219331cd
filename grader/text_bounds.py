"""Text a submission chose (compile errors quoting its lines, kernel and file names, answers,
notebook cells) made safe to show: bounded in length and lines, with control characters and
terminal escape sequences written out as visible escapes, and escaped for Markdown where it is
written into Markdown. Every message and hint of a report passes through `bounded` when it is
created (grader/results.py), so each output format (terminal, JSON, Markdown, Gradescope) gets
the bounded text."""

from __future__ import annotations

import re

MAX_CHARS = 2000
"""The longest message or hint a report keeps, marker included."""
MAX_LINES = 40
"""The most lines a message keeps, marker included."""
MAX_NAME_CHARS = 200
"""The longest name (a check, a source file, a stage) a report keeps."""
MAX_HINTS = 20
"""The most hints a report keeps."""

# C0 and C1 controls (ESC and the one-byte CSI among them) but newline and tab; DEL; the
# characters that reorder or hide text (bidirectional overrides, zero-width joiners and
# separators, line and paragraph separators: 'Trojan Source').
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character (ESC included: no colours, no cursor moves, no
    overwritten lines) written out as a visible escape such as `\\x1b`; newlines and tabs kept."""
    return _UNSAFE.sub(_visible, text.replace("\r\n", "\n"))


def _marker(count: int, unit: str) -> str:
    return f"… ({count} more {unit})"


def bounded(text: str, max_chars: int = MAX_CHARS, max_lines: int = MAX_LINES) -> str:
    """`text` made printable, cut to at most `max_lines` lines and `max_chars` characters (each
    marker included), saying how much was left out. Bounding a bounded text changes nothing."""
    text = printable(text)
    lines = text.split("\n")
    if len(lines) > max_lines:
        rest = len(lines) - (max_lines - 1)
        text = "\n".join([*lines[: max_lines - 1], _marker(rest, "lines")])
    if len(text) <= max_chars:
        return text
    # the marker's own length depends on the count; reserve for the widest it can be
    separator = "\n" if max_lines > 1 else " "
    keep = max(0, max_chars - len(_marker(len(text), "characters")) - len(separator))
    kept = separator.join(text[:keep].split("\n")[: max(1, max_lines - 1)])
    return kept + separator + _marker(len(text) - len(kept), "characters")


def bounded_name(text: str) -> str:
    """A name on one line: printable, newlines shown as `\\n`, at most MAX_NAME_CHARS."""
    return bounded(text.replace("\n", "\\n"), MAX_NAME_CHARS, 1)


def bounded_list(items: list[str], max_items: int = MAX_HINTS) -> list[str]:
    """Each item bounded, and at most `max_items` of them (the last saying how many were left)."""
    kept = [bounded(item) for item in items]
    if len(kept) <= max_items:
        return kept
    return [*kept[: max_items - 1], _marker(len(kept) - (max_items - 1), "hints")]


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#!|~&])")


def markdown_text(text: str) -> str:
    """`text` as literal Markdown: every character Markdown or HTML could read as syntax
    (emphasis, links, images, tags, headings, tables, code) backslash-escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))


def markdown_code_block(text: str) -> list[str]:
    """`text` as a fenced code block whose fence no run of backticks in it can close."""
    runs = [len(run) for run in re.findall("`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [fence, printable(text), fence]


def markdown_code_span(text: str) -> str:
    """`text` on one line as inline code that no backtick in it can end."""
    text = printable(text).replace("\n", " ")
    runs = [len(run) for run in re.findall("`+", text)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def reflowed(text: str) -> str:
    """Free text as one line per paragraph: the line breaks a YAML block keeps from the
    student's editor joined with spaces, blank lines between paragraphs kept."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())

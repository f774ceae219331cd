"""Text the grader did not write (a compiler's log, a student's message, a file name) is bounded
before it is shown: cut to a number of characters and lines saying how much was left, and its
control characters and escape sequences shown, not obeyed (the outputs that use it:
tests/test_output_bounds.py)."""

from __future__ import annotations

from grader.text_bounds import MAX_CHARS, MAX_LINES, bounded, printable


def test_a_megabyte_message_is_cut_to_the_bound_saying_how_much_was_left() -> None:
    text = bounded("x" * 1_000_000)
    assert len(text) <= MAX_CHARS
    left = 1_000_000 - text.count("x")
    assert text.endswith(f"… ({left} more characters)")
    assert bounded(text) == text  # bounding twice (child, then parent) changes nothing


def test_ten_thousand_lines_are_cut_to_the_line_bound() -> None:
    text = bounded("\n".join(f"line {i}" for i in range(10_000)))
    lines = text.split("\n")
    assert len(lines) == MAX_LINES and lines[0] == "line 0"
    assert lines[-1] == f"… ({10_000 - MAX_LINES + 1} more lines)"
    assert bounded(text) == text


def test_long_lines_and_many_lines_together_stay_within_both_bounds() -> None:
    text = bounded("\n".join("y" * 500 for _ in range(100)))
    assert len(text) <= MAX_CHARS and len(text.split("\n")) <= MAX_LINES
    assert bounded(text) == text


def test_escape_sequences_and_control_characters_are_shown_not_obeyed() -> None:
    raw = "a\x1b[31mred\x1b[0m\x1b]0;title\x07 \x9b2J back\rover\x00 \u202eevil\nnext\tcol"
    shown = printable(raw)
    assert not any(ch in shown for ch in "\x1b\x07\x9b\r\x00\u202e")
    assert "\\x1b[31mred\\x1b[0m" in shown and "\\x9b2J" in shown and "\\u202e" in shown
    assert "\nnext\tcol" in shown  # newlines and tabs stay: messages are multi-line

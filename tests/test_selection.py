"""`-k EXPR` for checks, as pytest reads it: words in the name, and, or, not, parentheses."""

from __future__ import annotations

import pytest

from grader.errors import GraderError
from grader.selection import parse_selection

NAMES = [
    "correctness tiny 1x1x1",
    "correctness square 64",
    "correctness square 1024",
    "correctness thin 1000x1x999",
    "performance",
]


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ("square", ["correctness square 64", "correctness square 1024"]),
        ("SQUARE and not 1024", ["correctness square 64"]),
        ("tiny or perf", ["correctness tiny 1x1x1", "performance"]),
        ("(tiny or thin) and not 1000", ["correctness tiny 1x1x1"]),
        ("not correctness", ["performance"]),
        ("not not performance", ["performance"]),
    ],
)
def test_words_and_operators_select_as_in_pytest(expression: str, selected: list[str]) -> None:
    matches = parse_selection(expression)
    assert [name for name in NAMES if matches(name)] == selected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "-k: give words to match check names"),
        ("and tiny", "-k 'and tiny': 'and' where a word should be"),
        ("(tiny", "-k '(tiny': ends where a word or '(' should follow"),
        ("tiny)", "-k 'tiny)': unexpected ')'"),
        ("(tiny thin)", "-k '(tiny thin)': a '(' is not closed"),
    ],
)
def test_an_expression_that_does_not_parse_is_one_line(expression: str, message: str) -> None:
    with pytest.raises(GraderError) as raised:
        parse_selection(expression)
    assert str(raised.value) == message or str(raised.value).startswith(message)


def test_expressions_that_would_recurse_without_end_are_one_line() -> None:
    # found by a red-team pass: these raised RecursionError
    for expression in ("not " * 3000 + "x", "(" * 400 + "x" + ")" * 400):
        with pytest.raises(GraderError) as raised:
            parse_selection(expression)
        assert str(raised.value).startswith("-k: ")
    long_chain = parse_selection(" or ".join(f"w{i}" for i in range(120)))
    assert long_chain("w119") and not long_chain("zz")  # wide is fine, and matched flat
    assert parse_selection("not not not x")("y")

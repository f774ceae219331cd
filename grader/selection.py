"""`-k EXPR` for checks, in the sense of pytest's: words matched against a check's name (case
does not matter, a word matches any part of the name), joined with `and`, `or`, `not` and
parentheses. `-k "square and not 1024"` selects the square cases but the largest."""

from __future__ import annotations

import re
from collections.abc import Callable

from grader.errors import GraderError

Matcher = Callable[[str], bool]
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
_OPERATORS = ("and", "or", "not")


def parse_selection(expression: str) -> Matcher:
    """A matcher of check names; a GraderError naming what is wrong in an expression that does
    not parse."""
    tokens = _TOKEN.findall(expression)
    if not tokens:
        raise GraderError("-k: give words to match check names, e.g. -k 'square and not 1024'")
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token = peek()
        if token is None:
            raise GraderError(f"-k {expression!r}: ends where a word or '(' should follow")
        position += 1
        return token

    def either() -> Matcher:
        left = both()
        while peek() == "or":
            take()
            left = _either(left, both())
        return left

    def both() -> Matcher:
        left = negation()
        while peek() == "and":
            take()
            left = _both(left, negation())
        return left

    def negation() -> Matcher:
        if peek() == "not":
            take()
            inner = negation()
            return lambda name: not inner(name)
        return atom()

    def atom() -> Matcher:
        token = take()
        if token == "(":
            inner = either()
            if take() != ")":
                raise GraderError(f"-k {expression!r}: a '(' is not closed")
            return inner
        if token in (")", *_OPERATORS):
            raise GraderError(f"-k {expression!r}: {token!r} where a word should be")
        word = token.lower()
        return lambda name: word in name.lower()

    matcher = either()
    if peek() is not None:
        raise GraderError(f"-k {expression!r}: unexpected {peek()!r}")
    return matcher


def _either(first: Matcher, second: Matcher) -> Matcher:
    return lambda name: first(name) or second(name)


def _both(first: Matcher, second: Matcher) -> Matcher:
    return lambda name: first(name) and second(name)

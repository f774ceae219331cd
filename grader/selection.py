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
MAX_LENGTH = 1000
"""Longer is not a selection of a few dozen checks, and parentheses could nest without end."""


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
        options = [both()]
        while peek() == "or":
            take()
            options.append(both())
        return options[0] if len(options) == 1 else _any(options)

    def both() -> Matcher:
        parts = [negation()]
        while peek() == "and":
            take()
            parts.append(negation())
        return parts[0] if len(parts) == 1 else _all(parts)

    def negation() -> Matcher:
        flips = 0
        while peek() == "not":
            take()
            flips += 1
        inner = atom()
        return _not(inner) if flips % 2 else inner

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

    if len(expression) > MAX_LENGTH:
        raise GraderError(f"-k: an expression of at most {MAX_LENGTH} characters")
    try:
        matcher = either()
    except RecursionError:  # parentheses nested hundreds deep
        raise GraderError("-k: parentheses nested too deep") from None
    if peek() is not None:
        raise GraderError(f"-k {expression!r}: unexpected {peek()!r}")
    return matcher


def _any(options: list[Matcher]) -> Matcher:
    return lambda name: any(option(name) for option in options)


def _all(parts: list[Matcher]) -> Matcher:
    return lambda name: all(part(name) for part in parts)


def _not(inner: Matcher) -> Matcher:
    return lambda name: not inner(name)

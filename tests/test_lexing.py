"""The lexer reads a kernel as the compilers do: tokens, lines and what counts as code."""

from __future__ import annotations

from grader.lexing import blank_comments_and_literals, canonical, tokens


def _texts(source: str) -> list[str]:
    return [t.text if t.kind != "newline" else "\\n" for t in tokens(canonical(source))]


def test_digit_separators_and_exponents_stay_inside_one_number() -> None:
    assert _texts("x = 1'000'000 + 0x1'F + 1e+5f;") == [
        "x", "=", "1'000'000", "+", "0x1'F", "+", "1e+5f", ";",
    ]  # fmt: skip


def test_block_comments_vanish_with_their_newlines_and_splices_join_lines() -> None:
    assert _texts("# /* one\ntwo */ define X \\\n 1\nY") == ["#", "define", "X", "1", "\\n", "Y"]


def test_tokens_keep_their_physical_lines() -> None:
    found = [(t.text, t.line) for t in tokens(canonical("a\n/*\n\n*/ b\\\n c\nd"))]
    assert found == [("a", 1), ("\n", 1), ("b", 4), ("c", 5), ("\n", 5), ("d", 6)]


def test_line_endings_and_loose_splices_are_made_canonical() -> None:
    assert canonical("a\r\nb\rc\\  \nd") == "a\nb\nc\\\nd"


def test_literals_with_prefixes_digraphs_and_universal_names() -> None:
    assert _texts("u8\"a\\\"b\" L'x' %: %:%: \\u0069nclude") == [
        'u8"a\\"b"', "L'x'", "#", "##", "include",
    ]  # fmt: skip
    assert [t.kind for t in tokens('R"(x)" uR"d(y)d"')] == ["raw_string", "raw_string"]


def test_blanking_keeps_lines_and_code_but_not_comments_or_literals() -> None:
    text = "int a = 1'0; const char *s = \"'/*\";\n/* c */ b // d\n"
    blanked = blank_comments_and_literals(text)
    assert blanked.count("\n") == text.count("\n")
    assert "1'0" in blanked and "b" in blanked
    assert "/*" not in blanked and "c" not in blanked.split("\n")[1]

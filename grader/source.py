"""A student's kernel source: read safely, scanned for refused directives and __global__ functions.

The text is kept in canonical form (`grader.lexing.canonical`: one kind of line ending, strict
line splices), and it is that text that the compilers get, so the scan and the compilers never
disagree on where a line ends. Line numbers are unchanged by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from grader.bounded_read import read_bounded
from grader.errors import GraderError
from grader.lexing import Token, blank_comments_and_literals, canonical, tokens

MAX_SOURCE_BYTES = 256 * 1024

# NVRTC is run without any include path, so it can open no header of its own; nothing may be
# included (an absolute path would otherwise be read from the grading machine's disk and its
# lines echoed in the compiler's errors). `%:` (the digraph of `#`) is the same directive.
_REFUSED_DIRECTIVES = frozenset({"include", "include_next", "import", "embed"})
_REFUSED_OPERATORS = frozenset({"__has_include", "__has_include_next", "__has_embed"})
# Names NVRTC and g++ (the CPU backend, see backends/cpu_preprocess.py) define differently even
# once the CPU build takes NVRTC's view of the file: code conditional on them would be compiled
# on one backend and not on the other (tests/backends/test_cpu_preprocess.py finds them).
_DIFFERING_NAMES = re.compile(
    r"__(?:cpp_\w+|has_\w+|COUNTER__|FILE_NAME__|TIMESTAMP__|STDC_UTF_\w+|STDCPP_\w+|EDG\w*"
    r"|NVCC\w*|PRAGMA_\w+|CUDACC_VER_\w+)"
)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
"""Control characters other than the blanks C++ allows (tab, newline, vertical tab, form feed)."""
_GLOBAL = re.compile(r"\b__global__\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_ATTRIBUTE_MACROS = frozenset({"__launch_bounds__", "__cluster_dims__", "__maxnreg__"})


@dataclass(frozen=True)
class KernelSource:
    """Source text and the name it is shown under (its file name, so compile errors match)."""

    text: str
    display_name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", canonical(self.text))


@dataclass(frozen=True)
class Refusal:
    """Why a source is refused before compiling, and where."""

    line: int
    message: str


def read_source(path: Path) -> KernelSource:
    """Read a kernel file. A missing file is a usage error; unreadable content is a GraderError too,
    naming the file, since nothing can be graded from it."""
    try:
        raw = read_bounded(path, MAX_SOURCE_BYTES)
    except FileNotFoundError:
        raise GraderError(f"{path}: file not found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise GraderError(f"{path}:{line}: not UTF-8 text") from None
    return KernelSource(text=text, display_name=path.name)


def find_refusals(source: KernelSource) -> list[Refusal]:
    """Constructs the grader refuses, with their lines. The included name is never echoed.

    The scan reads the source as the compilers do (`grader.lexing`), so a directive is found
    wherever they would find one, however it is spelled or hidden."""
    refusals: list[Refusal] = []
    control = _CONTROL.search(source.text)
    if control:
        # NVRTC reads its input as a C string (it stops at a NUL) while g++ reads on: the two
        # would compile different programs.
        line = source.text.count("\n", 0, control.start()) + 1
        code = f"0x{ord(control.group()):02X}"
        refusals.append(
            Refusal(line, f"a control character ({code}) is not allowed in a kernel: delete it")
        )
    after_hash: Token | None = None
    recent: tuple[str, str, str] = ("", "", "")
    scanned = list(tokens(source.text))
    for token in scanned:
        if after_hash is not None:
            if token.kind == "identifier" and token.text in _REFUSED_DIRECTIVES:
                refusals.append(Refusal(after_hash.line, _directive_message(token.text)))
            elif token.text == "line" or token.kind == "number":
                # g++ opens the file a #line or line marker names, to quote it in diagnostics
                refusals.append(Refusal(after_hash.line, _LINE_MESSAGE))
            after_hash = None
        recent = (*recent[1:], token.text)
        if recent[:2] == ("pragma", "GCC") and token.text not in ("unroll", "ivdep"):
            # g++ acts on these: `dependency` opens the named file (is it on the grader?)
            refusals.append(Refusal(token.line, f"#pragma GCC {token.text} is not allowed"))
        elif recent[:2] == ("_Pragma", "(") and (token.kind != "string" or "GCC" in token.text):
            # g++ expands macros in _Pragma's operand and reads the string it makes as a pragma
            refusals.append(Refusal(token.line, _PRAGMA_MESSAGE))
        if token.kind in ("identifier", "number", "punct") and (
            "$" in token.text or not token.text.isascii()
        ):
            # NVRTC reads `$` and non-ASCII characters as tokens of their own, this scan (and
            # g++) as part of a name or number: what follows (a raw string's R, a quote) would
            # be read differently by each
            refusals.append(Refusal(token.line, _NON_ASCII_MESSAGE))
        if token.kind == "newline":
            continue
        if token.text == "#":
            # `#include` is refused wherever it stands, not only first on a line: the compilers
            # disagree on where a line starts after a block comment that spans lines (g++
            # follows the standard, `*/*/` NEWLINE `*/#include` is no directive; NVRTC reads the
            # file). Outside a directive the pair is at most a macro's body, never needed here.
            after_hash = token
        elif token.kind == "identifier" and token.text in _REFUSED_OPERATORS:
            refusals.append(
                Refusal(token.line, f"{token.text} is not allowed: no file can be looked up")
            )
        elif token.kind == "identifier" and _DIFFERING_NAMES.fullmatch(token.text):
            refusals.append(
                Refusal(
                    token.line,
                    f"{token.text} is not allowed: the grader's compilers (NVRTC on a GPU, g++ "
                    "on the CPU backend) define it differently",
                )
            )
        elif token.kind == "raw_string":
            refusals.append(
                Refusal(
                    token.line,
                    'raw string literals (R"(...)") are not allowed in a kernel; '
                    "use an ordinary string",
                )
            )
    refusals += [Refusal(line, _PASTE_MESSAGE) for line in _pasting_in_conditions(scanned)]
    return refusals


def _pasting_in_conditions(scanned: list[Token]) -> list[int]:
    """Lines of #if/#elif that use a macro pasting tokens (`##`), directly or through other
    macros: pasting could spell __has_include there, which no scan of the tokens sees."""
    lines: list[list[Token]] = [[]]
    for token in scanned:
        if token.kind == "newline":
            lines.append([])
        else:
            lines[-1].append(token)
    # a directive is looked for wherever a # stands in a line: NVRTC takes `*/#if` after a
    # comment that began on an earlier line as a directive, where this scan sees one line
    directives = [
        (line[i + 1].text, line[i + 2 :], line[i].line)
        for line in lines
        for i in range(len(line) - 1)
        if line[i].text == "#"
    ]
    bodies: dict[str, set[str]] = {}
    for name, rest, _ in directives:
        if name == "define" and rest:
            names = {t.text for t in rest[1:] if t.kind == "identifier" or t.text == "##"}
            bodies.setdefault(rest[0].text, set()).update(names)
    pasting = {name for name, body in bodies.items() if "##" in body}
    grown = True
    while grown:
        more = {name for name, body in bodies.items() if body & pasting} - pasting
        pasting |= more
        grown = bool(more)
    return [
        line
        for name, rest, line in directives
        if name in ("if", "elif") and any(t.text in pasting or t.text == "##" for t in rest)
    ]


_LINE_MESSAGE = '#line (and line markers like `# 1 "file"`) are not allowed in a kernel'
_PASTE_MESSAGE = "a macro that pastes tokens (##) is not allowed in #if or #elif"
_NON_ASCII_MESSAGE = (
    "`$` and non-ASCII characters are allowed only in comments and strings: the compilers read "
    "them differently"
)
_PRAGMA_MESSAGE = "_Pragma takes one string literal here, and no GCC pragma"


def _directive_message(name: str) -> str:
    return (
        f"#{name} is not allowed: the grader compiles your kernel file alone (NVRTC, no "
        "headers); threadIdx, __syncthreads() and the math functions need no #include. "
        "Delete the line."
    )


@dataclass(frozen=True)
class GlobalFunction:
    name: str
    line: int


def find_global_functions(source: KernelSource) -> list[GlobalFunction]:
    """The __global__ functions declared in the source, in order, with their lines."""
    code = blank_comments_and_literals(source.text)
    found: list[GlobalFunction] = []
    for match in _GLOBAL.finditer(code):
        position = match.end()
        while True:
            call = _CALL.search(code, position)
            if call is None:
                break
            if call.group(1) in _ATTRIBUTE_MACROS:
                close = code.find(")", call.end())
                position = call.end() if close < 0 else close + 1
                continue
            line = code.count("\n", 0, call.start(1)) + 1
            if all(f.name != call.group(1) for f in found):
                found.append(GlobalFunction(call.group(1), line))
            break
    return found

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
_RESERVED = re.compile(r"_[A-Z]\w*|__[A-Z]\w*")
"""Names reserved to the compilers: their headers' macros (NVRTC's `_NV_PASTE5`, say) paste
tokens, and could spell `__has_include` from a kernel's pieces."""
_RESERVED_ALLOWED = frozenset(
    {
        "_Pragma",
        "__CUDA_ARCH__",
        "__CUDACC__",
        "__CUDACC_RTC__",
        "__GNUC__",
        "__LINE__",
        "__FILE__",
        "__VA_ARGS__",
    }
)
_SANITIZER_PREFIXES = (
    "asan", "ubsan", "lsan", "msan", "tsan", "hwasan", "sanitizer", "interceptor"
)  # fmt: skip
_SANITIZER_NAMES = re.compile(rf"__(?:{'|'.join(_SANITIZER_PREFIXES)})\w*")
"""The sanitizers' own functions in the CPU backend's checked build: a kernel's file that defined
one (an empty `__asan_poison_memory_region`, say) would switch their checks off there."""
_SANITIZER_LIST = ", ".join(f"__{p}" for p in _SANITIZER_PREFIXES[:-1]) + (
    f" or __{_SANITIZER_PREFIXES[-1]}"
)
"""The prefixes, as the refusal names them (one list for the pattern and the message)."""
_ODD_SEPARATOR = re.compile(r"(?<![0-9A-Fa-f])'|'(?![0-9A-Fa-f])")
"""A `'` in a number other than a digit separator between two (hex) digits."""
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
    scanned = list(tokens(source.text))
    for index, token in enumerate(scanned):
        following = scanned[index + 1 : index + 4]
        if after_hash is not None:
            if token.kind == "identifier" and token.text in _REFUSED_DIRECTIVES:
                refusals.append(Refusal(after_hash.line, _directive_message(token.text)))
            elif token.text == "line" or token.kind == "number":
                # g++ opens the file a #line or line marker names, to quote it in diagnostics
                refusals.append(Refusal(after_hash.line, _LINE_MESSAGE))
            after_hash = None
        before = [t.text for t in scanned[max(0, index - 2) : index]]
        if before == ["pragma", "GCC"] and token.text not in ("unroll", "ivdep"):
            # g++ acts on these: `dependency` opens the named file (is it on the grader?)
            refusals.append(Refusal(token.line, f"#pragma GCC {token.text} is not allowed"))
        if token.text == "_Pragma" and not _plain_pragma(following):
            # g++ expands macros in _Pragma's operand and reads the string it makes as a pragma
            # (`GCC dependency` opens a file): only `_Pragma("...")`, whole on its line
            refusals.append(Refusal(token.line, _PRAGMA_MESSAGE))
        if token.kind == "number" and _separator_differs(source.text, token, following):
            refusals.append(Refusal(token.line, _SEPARATOR_MESSAGE))
        if token.text == "##":
            refusals.append(Refusal(token.line, _PASTE_MESSAGE))
        if token.kind in ("identifier", "number", "punct") and (
            "$" in token.text
            or not token.text.isascii()
            or "\\" in _unspliced(source.text, token.start, token.end)
        ):
            # NVRTC reads `$` and non-ASCII characters as tokens of their own, this scan (and
            # g++) as part of a name or number: what follows (a raw string's R, a quote) would
            # be read differently by each. So with a backslash (a universal character name):
            # g++ takes `1\u0041` as one number, this scan and NVRTC as `1` and `A`
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
        elif (
            token.kind == "identifier"
            and _RESERVED.fullmatch(token.text)
            and token.text not in _RESERVED_ALLOWED
        ):
            refusals.append(Refusal(token.line, _reserved_message(token.text)))
        elif token.kind == "identifier" and _SANITIZER_NAMES.fullmatch(token.text):
            refusals.append(
                Refusal(
                    token.line,
                    f"{token.text} is not allowed: names that start with {_SANITIZER_LIST} "
                    "belong to the sanitizers of the CPU backend's checked build",
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
    return refusals


def _plain_pragma(following: list[Token]) -> bool:
    """Whether the tokens after `_Pragma` are `(`, one string literal naming no GCC pragma,
    `)`, on the same line."""
    texts = [t.text for t in following]
    return (
        len(following) == 3
        and texts[0] == "("
        and following[1].kind == "string"
        and "GCC" not in texts[1]
        # g++ reads `G\u0043C` as GCC, and `\\` as a backslash before it: no escape but \"
        and "\\" not in texts[1].replace('\\"', "")
        and texts[2] == ")"
    )


def _separator_differs(text: str, number: Token, following: list[Token]) -> bool:
    """Whether a `'` in or right after this number is other than a digit separator between two
    digits: NVRTC ends a number after `1'` whatever follows, g++ swallows a run of quotes, and each
    then reads a quote, a comment, a directive where the other does not (`1'#'/*` NEWLINE
    `#include` made NVRTC read the file)."""
    if _ODD_SEPARATOR.search(number.text):
        return True
    after = following[0] if following else None
    return (
        after is not None
        and after.text.startswith("'")
        and _unspliced(text, number.end, after.start) == ""
    )


def _unspliced(text: str, start: int, end: int) -> str:
    """`text[start:end]` with its line splices (backslash-newline) removed."""
    return text[start:end].replace("\\\n", "")


def _reserved_message(name: str) -> str:
    return (
        f"{name} is not allowed: names that start with an underscore and a capital letter, or "
        "two underscores and a capital, belong to the compilers (their macros are not part of "
        "the exercise)"
    )


_LINE_MESSAGE = '#line (and line markers like `# 1 "file"`) are not allowed in a kernel'
_PASTE_MESSAGE = (
    "token pasting (##) is not allowed in a kernel: a pasted name escapes the grader's checks"
)
_SEPARATOR_MESSAGE = (
    "a ' in a number is allowed only as a digit separator between two digits (1'000): the "
    "compilers read other uses differently"
)
_NON_ASCII_MESSAGE = (
    "`$`, non-ASCII characters and backslashes (\\u0041) are allowed only in comments and "
    "strings: the compilers read them differently"
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

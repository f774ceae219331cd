"""A student's kernel source: read safely, scanned for refused directives and __global__ functions.

Scanning works on a copy with comments and literals blanked out (newlines kept), so that line
numbers still match the student's file and text inside a comment never counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError

MAX_SOURCE_BYTES = 256 * 1024

# NVRTC is run without any include path, so it can open no header of its own; nothing may be
# included (an absolute path would otherwise be read from the grading machine's disk).
# `%:` is the digraph spelling of `#`: g++ honours it (NVRTC does not), so a hidden `%:include`
# would reach the CPU backend's build.
_REFUSED_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b")
_HAS_INCLUDE = re.compile(r"\b__has_include(_next)?\b")
_GLOBAL = re.compile(r"\b__global__\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_ATTRIBUTE_MACROS = frozenset({"__launch_bounds__", "__cluster_dims__", "__maxnreg__"})


@dataclass(frozen=True)
class KernelSource:
    """Source text and the name it is shown under (its file name, so compile errors match)."""

    text: str
    display_name: str


@dataclass(frozen=True)
class Refusal:
    """Why a source is refused before compiling, and where."""

    line: int
    message: str


def read_source(path: Path) -> KernelSource:
    """Read a kernel file. A missing file is a usage error; unreadable content is a GraderError too,
    naming the file, since nothing can be graded from it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise GraderError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise GraderError(f"{path}: is a directory, expected a .cu file") from None
    except OSError as exc:
        raise GraderError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_SOURCE_BYTES:
        raise GraderError(
            f"{path}: {len(raw)} bytes, over the limit of {MAX_SOURCE_BYTES} for a kernel"
        )
    if b"\0" in raw:
        raise GraderError(f"{path}: binary file (contains NUL bytes), expected CUDA source text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise GraderError(f"{path}:{line}: not UTF-8 text") from None
    return KernelSource(text=text, display_name=path.name)


def blank_comments_and_literals(text: str) -> str:
    """`text` with comments, string and character literals replaced by spaces; newlines kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        two = text[i : i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _logical_lines(code: str) -> list[tuple[int, str]]:
    """Physical lines joined at backslash-newline continuations, each with its first line number."""
    lines: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(code.split("\n"), start=1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        lines.append((start, "".join(pending)))
        pending = []
    if pending:
        lines.append((start, "".join(pending)))
    return lines


def find_refusals(source: KernelSource) -> list[Refusal]:
    """Directives the grader refuses, with their lines. The included name is never echoed."""
    refusals: list[Refusal] = []
    for line, text in _logical_lines(blank_comments_and_literals(source.text)):
        directive = _REFUSED_DIRECTIVE.match(text)
        if directive:
            refusals.append(
                Refusal(
                    line,
                    f"#{directive.group(1)} is not allowed: the grader compiles your kernel file "
                    "alone (NVRTC, no headers); threadIdx, __syncthreads() and the math functions "
                    "need no #include. Delete the line.",
                )
            )
        elif _HAS_INCLUDE.search(text):
            refusals.append(
                Refusal(line, "__has_include is not allowed: no header can be included")
            )
    return refusals


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

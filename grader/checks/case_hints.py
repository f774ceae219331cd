"""Hints drawn across several cases of one grading: which shapes pass and which fail, which tile
sizes of a sweep, and the lines of the student's source where what the pattern points at is."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from grader.lexing import Token, tokens
from grader.results import CheckResult
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape
from grader.text_bounds import bounded_name, printable

_CLEAN_SYMPTOMS = frozenset({"everywhere", "scattered", "zeros", "boundary"})


def cross_case_hints(
    cases: Sequence[tuple[Shape, CheckResult]],
    tile_k: int | None,
    launch: LaunchSpec,
    source: KernelSource | None = None,
) -> list[str]:
    """Hints from which shapes pass and which fail, each naming the pattern it saw; with the
    source, also the lines where the grader finds what the pattern points at."""
    hints = _pattern_hints(cases, tile_k, launch, source)
    if source is not None:
        # in a sweep, a shape that passes in another build fails for that build's sake
        passing = {shape for shape, r in cases if r.status == "passed"}
        failed = [r for shape, r in cases if r.status == "failed" and shape not in passing]
        hints += _symptom_line_hints(failed, source)
        if failed:
            hints += _dynamic_shared_hint(source)
    return hints


def _dynamic_shared_hint(source: KernelSource) -> list[str]:
    """`extern __shared__` arrays, which the exercise's launch gives no bytes (it passes none)."""
    items = [t for t in tokens(source.text) if t.kind != "newline"]
    lines = [
        b.line for a, b in itertools.pairwise(items) if (a.text, b.text) == ("extern", "__shared__")
    ]
    if not lines:
        return []
    where = ", ".join(f"{bounded_name(source.display_name)}:{line}" for line in lines[:3])
    return [
        f"`extern __shared__` ({where}) is dynamic shared memory, sized at launch, and the "
        "exercise launches the kernel with none (0 bytes): give the tiles fixed sizes, e.g. "
        "`__shared__ float tile[TILE_SIZE][TILE_SIZE];`"
    ]


def _pattern_hints(
    cases: Sequence[tuple[Shape, CheckResult]],
    tile_k: int | None,
    launch: LaunchSpec,
    source: KernelSource | None,
) -> list[str]:
    ran = [(shape, r) for shape, r in cases if r.status in ("passed", "failed")]
    # In a sweep a shape runs once per build: one that passes in one build and fails in another
    # says something about the builds (see ignored_tile_size_hint), nothing about shapes.
    verdicts: dict[Shape, set[str]] = {}
    for shape, r in ran:
        verdicts.setdefault(shape, set()).add(r.status)
    ran = [(shape, r) for shape, r in ran if len(verdicts[shape]) == 1]
    passed = [shape for shape, r in ran if r.status == "passed"]
    failed = [(shape, r) for shape, r in ran if r.status == "failed"]
    if not passed or not failed:
        return []
    failed_shapes = [shape for shape, _ in failed]
    names = ", ".join(str(s) for s in dict.fromkeys(passed))
    columns, rows = launch.tile
    # Shapes within one block's tile pass many wrong kernels: they say little about sizes.
    telling = [s for s in passed if s.m > rows or s.n > columns]
    if len(set(passed)) == 1 and telling and len(set(verdicts)) >= 3:
        only = passed[0]
        where = _literal_lines(source, {only.m, only.k, only.n} - {1}) if source else ""
        return [
            f"Correct only at {only}: are sizes hard-coded instead of taken from M, K and N?{where}"
        ]
    # a square inside one block's tile fails for other reasons (bounds): it says nothing here
    big_squares_failed = any(
        s.m == s.k == s.n and (s.m > rows or s.n > columns) for s in failed_shapes
    )
    if all(s.m == s.k == s.n for s in passed) and len(set(passed)) > 1 and not big_squares_failed:
        return [
            f"Correct only for square shapes ({names}): somewhere M, K or N is used where another "
            "belongs (A's row stride is K; B's and C's is N; the loop runs over K)."
        ]
    clean = all(set(r.symptoms) <= _CLEAN_SYMPTOMS for _, r in failed)
    longest_passing = max(s.k for s in passed)
    if clean and all(s.k > longest_passing for s in failed_shapes):
        shapes = ", ".join(map(str, dict.fromkeys(failed_shapes)))
        where = _literal_lines(source, {longest_passing}) if source else ""
        return [
            f"Fails exactly when K is over {longest_passing} ({shapes}), the longest K that "
            "passes: the loop over K must cover all of K. Count its tiles from K, not from M, "
            f"N or a fixed size such as 1024 / TILE_SIZE.{where}"
        ]
    if tile_k and clean:
        misses_k = {s for s in failed_shapes if s.k % tile_k}
        if misses_k == set(failed_shapes) and all(s.k % tile_k == 0 for s in passed):
            return [
                f"Fails exactly when K is not a multiple of {tile_k}: the last, partial tile "
                f"along K is dropped. Round the number of tiles up: (K + {tile_k} - 1) / {tile_k}."
            ]
    edges = {s for s in failed_shapes if s.m % rows or s.n % columns}
    if edges == set(failed_shapes) and all(s.m % rows == 0 and s.n % columns == 0 for s in passed):
        return [
            f"Fails exactly when M or N is not a multiple of the block's tile ({rows} rows x "
            f"{columns} columns): check the bounds on rows and columns."
        ]
    return []


def ignored_tile_size_hint(
    by_build: dict[str, list[CheckResult]], source: KernelSource | None = None
) -> str | None:
    """For a sweep (builds named `TILE_SIZE=8`, ...): which builds fail while others pass. When
    exactly one passes, the mark of a tile size written into the code instead of taken from
    TILE_SIZE; with the source, the lines that hold that size."""
    ran = {build: results for build, results in by_build.items() if build}
    passing = [b for b, rs in ran.items() if all(r.status == "passed" for r in rs)]
    failing = [b for b, rs in ran.items() if any(r.failed_or_errored for r in rs)]
    if not passing or not failing:
        return None
    fails = ", ".join(_build_failure(build, ran[build]) for build in failing)
    if len(passing) > 1:
        return (
            f"Fails at {fails}; passes at {', '.join(passing)}: something in the kernel holds "
            "only for some tile sizes. The grader builds it once for each TILE_SIZE and launches "
            "blocks of TILE_SIZE x TILE_SIZE threads, each covering as many elements of C."
        )
    define, _, value = passing[0].partition("=")
    where = ""
    if source is not None and value.isdigit():
        where = _literal_lines(source, {int(value)})
    return (
        f"Passes at {passing[0]} only (fails at {fails}): is the tile size hard-coded instead "
        f"of {define or 'TILE_SIZE'}? The grader builds the kernel once for each {define} and "
        f"launches blocks of {define} x {define} threads, each covering as many elements of C: "
        f"every tile's size, array size and loop bound must follow it.{where}"
    )


def _build_failure(build: str, results: list[CheckResult]) -> str:
    """`TILE_SIZE=8`, with why where the build itself failed (not the kernel's output)."""
    for result in results:
        if result.message.startswith(f"does not compile with {build}"):
            return f"{build} (does not compile)"
        if result.message.startswith(f"cannot run with {build}"):
            return f"{build} (cannot run)"
    return build


# What the grader can find in the source, to name the line a hint is about. A scan of tokens
# (comments and string literals do not count), never a parse: it names lines to look at.

_INTEGER = re.compile(r"(\d+)[uUlL]*")
MAX_LINES_NAMED = 3


def _lines_of(source: KernelSource) -> dict[int, list[Token]]:
    lines: dict[int, list[Token]] = {}
    for token in tokens(source.text):
        if token.kind != "newline":
            lines.setdefault(token.line, []).append(token)
    return lines


def _quote(source: KernelSource, line: int) -> str:
    """The line as a short printable quote (a source line is the student's text)."""
    text = source.text.splitlines()[line - 1].strip()
    text = printable(text.split("//")[0].strip() or text)
    return text if len(text) <= 60 else text[:57] + "..."


def _short(name: str) -> str:
    """An identifier from the source as a hint names it: printable, at most 60 characters."""
    return bounded_name(name) if len(name) <= 60 else printable(name[:57]) + "..."


def _name_lines(source: KernelSource, numbers: Sequence[int], what: str) -> str:
    """` Look at kernel.cu:3 (#define TILE 32), ...`: where the grader found `what`."""
    if not numbers:
        return ""
    file = bounded_name(source.display_name)
    shown = [f"{file}:{n} ({_quote(source, n)})" for n in numbers[:MAX_LINES_NAMED]]
    more = f" and {len(numbers) - MAX_LINES_NAMED} more" if len(numbers) > MAX_LINES_NAMED else ""
    return f" {what}: {', '.join(shown)}{more}."


def _literal_lines(source: KernelSource, values: set[int]) -> str:
    """The lines holding one of these integers as a literal."""
    found = [
        line
        for line, toks in _lines_of(source).items()
        if any(
            t.kind == "number" and (m := _INTEGER.fullmatch(t.text)) and int(m.group(1)) in values
            for t in toks
        )
    ]
    shown = " or ".join(str(v) for v in sorted(values))
    return _name_lines(source, found, f"The grader finds {shown} written in the code at")


def _output_name(source: KernelSource) -> str | None:
    """The name of the kernel's third parameter (C), or None where no kernel is found."""
    items = [t for t in tokens(source.text) if t.kind != "newline"]
    for i, token in enumerate(items):
        if token.text != "__global__":
            continue
        opening = next((j for j in range(i, len(items)) if items[j].text == "("), None)
        if opening is None:
            return None
        params: list[list[Token]] = [[]]
        depth = 0
        for t in items[opening + 1 :]:
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif t.text == "," and depth == 0:
                params.append([])
                continue
            params[-1].append(t)
        names = [t.text for t in params[2] if t.kind == "identifier"] if len(params) > 2 else []
        return names[-1] if names else None
    return None


def _reads_of_output(source: KernelSource) -> list[int]:
    """Lines with `C[...] op= ...` (C the kernel's output): C read before it is written."""
    name = _output_name(source)
    found: list[int] = []
    for line, toks in _lines_of(source).items():
        for i, token in enumerate(toks):
            if token.text != name or i + 1 >= len(toks) or toks[i + 1].text != "[":
                continue
            depth, j = 0, i + 1
            while j < len(toks):
                depth += {"[": 1, "]": -1}.get(toks[j].text, 0)
                if depth == 0:
                    break
                j += 1
            after = [t.text for t in toks[j + 1 : j + 3]]
            if len(after) == 2 and after[0] in "+-*/" and after[1] == "=":
                found.append(line)
    return sorted(set(found))


def _shared_arrays(source: KernelSource) -> list[tuple[str, int]]:
    """`__shared__` arrays: name and line."""
    items = [t for t in tokens(source.text) if t.kind != "newline"]
    found = []
    for i, token in enumerate(items):
        if token.text != "__shared__":
            continue
        j = i + 1
        while j + 1 < len(items) and items[j + 1].text not in ("[", ";", "="):
            j += 1
        if j + 1 < len(items) and items[j + 1].text == "[" and items[j].kind == "identifier":
            found.append((items[j].text, items[j].line))
    return found


def _symptom_line_hints(failed: Sequence[CheckResult], source: KernelSource) -> list[str]:
    """For a symptom some failed case showed, the lines of the source it points at."""
    seen = {symptom for r in failed for symptom in r.symptoms}
    hints = []
    if "plus_equals" in seen:
        where = _name_lines(source, _reads_of_output(source), "C is read and written at")
        if where:
            hints.append(
                "C holds NaN when the kernel starts (on a GPU, whatever was there): accumulate "
                f"in a register and store C once.{where}"
            )
    if "uninitialised_shared" in seen:
        arrays = _shared_arrays(source)
        if arrays:
            file = bounded_name(source.display_name)
            named = ", ".join(f"{_short(name)} ({file}:{line})" for name, line in arrays[:5])
            hints.append(
                f"Shared tiles {named}: in every step, each element a thread reads must have "
                "been stored by some thread of the block since the last __syncthreads() (0.0f "
                "where it lies outside A or B); an `if` that skips the store leaves it unwritten."
            )
    return hints

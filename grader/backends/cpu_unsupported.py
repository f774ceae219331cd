"""Constructs the CPU backend cannot run faithfully: refused with their line, never mis-run.
Read in the student's file and again in the file as NVRTC sees it (a macro may spell `asm`)."""

from __future__ import annotations

import re

from grader.backends.cpu_builtins import missing_builtin
from grader.lexing import blank_comments_and_literals
from grader.source import KernelSource

# Constructs the emulator cannot run faithfully: refused with their line, never mis-run.
_UNSUPPORTED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(asm|__asm__|__asm)\b"), "inline PTX (asm)"),
    (
        re.compile(r"\bcooperative_groups\b|\bcg::|\bthis_grid\b|\bthis_thread_block\b"),
        "cooperative groups",
    ),
    (re.compile(r"\bclock(64)?\s*\("), "clock()/clock64()"),
    (re.compile(r"\b__globaltimer\b|%globaltimer"), "the global timer"),
    (re.compile(r"<<<"), "a kernel launch inside a kernel (dynamic parallelism)"),
    (re.compile(r"\bwmma::|\bnvcuda\b|\bmma_sync\b"), "tensor-core operations (wmma)"),
    (re.compile(r"\b__nanosleep\b"), "__nanosleep()"),
    (re.compile(r"\b(tex1D|tex2D|tex3D|tex1Dfetch|surf2Dwrite)\b"), "textures and surfaces"),
    (
        re.compile(r"\b__(match_any|match_all|reduce_add|reduce_min|reduce_max)_sync\b"),
        "__match_*_sync / __reduce_*_sync",
    ),
    (
        re.compile(r"\bcuda(Malloc|Free|Memcpy|DeviceSynchronize)\b"),
        "the CUDA runtime API in device code",
    ),
    (re.compile(r"\b__activemask\b"), "__activemask()"),
    # NVVM merges loads it may assume aligned into wider ones, which fault on a GPU where the
    # pointer is not (an 8-byte load at A + 1: 19/100 there, 100/100 here: red team, round 23)
    (
        re.compile(r"\b__builtin_assume(?:_aligned)?\b"),
        "an assumption (__builtin_assume, __builtin_assume_aligned): NVRTC may merge loads into "
        "wider ones that fault on a GPU where a pointer is less aligned than assumed",
    ),
    # a declaration added to the runtime's or the library's namespace joins the lookups of code
    # compiled after it: the runtime's templates, instantiated at the end of the unit, and,
    # while the harness came after the student's code, the harness's unqualified calls (red
    # team, session 23: an empty kernel passed ex1)
    (
        re.compile(r"\bnamespace\s+(?:gg|gg_harness|std|boost|__gnu_cxx|__cxxabiv1)\b"),
        "code in a namespace of the CPU runtime's or the C++ library's (gg, gg_harness, std)",
    ),
)


_HARMLESS_ATTRIBUTES = frozenset(
    {"aligned", "unused", "maybe_unused", "noinline", "always_inline", "likely", "unlikely",
     "fallthrough", "nodiscard", "restrict"}
)  # fmt: skip
"""Attributes that change nothing g++ would run. Any other one may: NVRTC drops a
`__device__` function that nothing calls, with its attributes, while g++ runs one marked
`constructor` before the harness, and `section`, `ifunc`, `alias`, `cleanup`... change what
runs or where."""
_ATTRIBUTE = re.compile(r"\b__attribute(?:__)?\s*\(\s*\(|\b__declspec\b|\[\s*\[")
_ATTRIBUTE_NAME = re.compile(r"(?:^|,)\s*(?:\w+\s*::\s*)?(\w+)")


def _attribute_body(code: str, match: re.Match[str]) -> str | None:
    """The text between the attribute list's brackets, None where it does not close."""
    # brackets and parentheses are counted: the first `]]` may close a subscript inside the
    # list (`gnu::aligned(a[b[0]]), gnu::section(...)` hid the section from a search for `]]`)
    opening, closing = ("[(", "])") if match.group().startswith("[") else ("(", ")")
    depth = 2
    for index in range(match.end(), len(code)):
        depth += 1 if code[index] in opening else -1 if code[index] in closing else 0
        if depth == 1:
            return code[match.end() : index]
    return None


def _attribute_problem(code: str, match: re.Match[str]) -> str | None:
    """What is wrong with the attribute list `match` starts, None if it is harmless."""
    if match.group() == "__declspec":
        return "__declspec"
    body = _attribute_body(code, match)
    if body is None:
        return "an attribute the grader cannot read"
    while re.search(r"\([^()]*\)", body):  # arguments, as in aligned(16)
        body = re.sub(r"\([^()]*\)", "", body)
    for name in _ATTRIBUTE_NAME.findall(body):
        if name.strip("_") not in _HARMLESS_ATTRIBUTES:
            return f"the attribute '{name.strip('_')}'"
    return None


_TEMPLATE_HEAD = re.compile(r"(?<![.>:])\btemplate\s*<")
_SHARED = re.compile(r"\b__shared__\b")


def closing_bracket(code: str, start: int, opening: str, closing: str) -> int:
    """The index just past the bracket that closes the one at `start` (the end where none)."""
    depth = 0
    for index in range(start, len(code)):
        depth += {opening: 1, closing: -1}.get(code[index], 0)
        if depth == 0:
            return index + 1
    return len(code)


_LAMBDA_PARAMETERS = re.compile(r"\]\s*\(")
_AUTO = re.compile(r"\bauto\b")


def _template_heads(code: str) -> list[int]:
    """Where each template's declaration ends: after `template <...>`, and after the parameters
    of a generic lambda (one with an `auto` parameter), a template without `template <` (red
    team, rounds 17 and 18)."""
    heads = _TEMPLATE_HEAD.finditer(code)
    ends = [closing_bracket(code, head.end() - 1, "<", ">") for head in heads]
    for lambda_ in _LAMBDA_PARAMETERS.finditer(code):
        parameters = closing_bracket(code, lambda_.end() - 1, "(", ")")
        if _AUTO.search(code, lambda_.end(), parameters):
            ends.append(parameters)
    return ends


def shared_in_template(code: str) -> int | None:
    """Where a `__shared__` variable is declared in a template's body (a function template, a
    member of a class template, a generic lambda), None where none is: g++ puts a template's
    static variables in sections of their own, out of the shared memory the CPU backend gives
    each block."""
    for declaration in _template_heads(code):
        body = next((i for i in range(declaration, len(code)) if code[i] in "{;"), len(code))
        variable = _SHARED.search(code, declaration, body)
        if variable:  # a variable template (red team, round 20)
            return variable.start()
        if body == len(code) or code[body] == ";":
            continue  # declared here, defined (or not) elsewhere
        found = _SHARED.search(code, body, closing_bracket(code, body, "{", "}"))
        if found:
            return found.start()
    return None


_INLINE_HEAD = re.compile(r"\b(?:inline|__inline__|__forceinline__)\b|\b(?:struct|class|union)\b")


def _inline_bodies(code: str) -> list[tuple[int, int]]:
    """The spans of inline functions' bodies and of struct, class and union bodies (whose
    member functions are inline): g++ gives their static variables sections of their own."""
    spans: list[tuple[int, int]] = []
    for head in _INLINE_HEAD.finditer(code):
        body = next((i for i in range(head.end(), len(code)) if code[i] in "{;"), len(code))
        between = code[head.end() : body]
        if body == len(code) or code[body] == ";" or "namespace" in between or "=" in between:
            continue  # a declaration, an inline namespace, a variable initialised from a brace
        spans.append((body, closing_bracket(code, body, "{", "}")))
    return spans


def shared_in_inline_and_elsewhere(code: str) -> int | None:
    """Where a `__shared__` variable is declared in an inline function (or a member function)
    while another is declared outside every such body, None otherwise: g++ cannot put both
    kinds of static variable in the one section that is each block's shared memory."""
    spans = _inline_bodies(code)
    inside: list[int] = []
    outside: list[int] = []
    for shared in _SHARED.finditer(code):
        where = shared.start()
        (inside if any(a <= where < b for a, b in spans) else outside).append(where)
    return inside[0] if inside and outside else None


_TEMPLATE_SHARED = (
    "a __shared__ variable declared in a template (or a lambda with an auto parameter) is not "
    "supported by the CPU backend (g++ would give every block the same copy): declare it in "
    "the kernel, or in a __device__ function that is not a template"
)
_INLINE_SHARED = (
    "__shared__ variables both in an inline function (or a struct's member function) and "
    "elsewhere are not supported by the CPU backend: declare them in the kernel, or in "
    "__device__ functions that are not inline"
)


def unsupported_constructs(source: KernelSource) -> list[str]:
    code = blank_comments_and_literals(source.text)
    found: list[str] = []
    shared = shared_in_template(code)
    where, what = (shared, _TEMPLATE_SHARED) if shared is not None else (None, "")
    if where is None:
        where, what = shared_in_inline_and_elsewhere(code), _INLINE_SHARED
    if where is not None:
        line = code.count("\n", 0, where) + 1
        found.append(f"{source.display_name}:{line}: {what}")
    # the digraphs `<:` and `:>` are `[` and `]`: `<:<:gnu::section(...):>:>` is an attribute
    # (one that made g++ assemble an `.incbin` of a host file), length and lines kept
    brackets = code.replace("<:", "[ ").replace(":>", "] ")
    for attribute in _ATTRIBUTE.finditer(brackets):
        problem = _attribute_problem(brackets, attribute)
        if problem:
            line = code.count("\n", 0, attribute.start()) + 1
            found.append(
                f"{source.display_name}:{line}: {problem} is not supported by the CPU backend "
                "(g++ could run what NVRTC leaves out)"
            )
            break
    for pattern, what in _UNSUPPORTED:
        match = pattern.search(code)
        if match:
            line = code.count("\n", 0, match.start()) + 1
            found.append(
                f"{source.display_name}:{line}: {what} is not supported by the CPU backend"
            )
    missing = missing_builtin(code)
    if missing is not None:
        line = code.count("\n", 0, missing[0]) + 1
        found.append(
            f"{source.display_name}:{line}: {missing[1]}() is not provided by the CPU backend "
            "(a CUDA built-in its runtime lacks)"
        )
    return found

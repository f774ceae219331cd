"""Proof that the CPU backend builds the program NVRTC compiles, or a refusal naming why not.

The CPU build compiles the student's file as g++ preprocessed it with NVRTC's macros
(`cpu_preprocess`). Two things could still make g++ run another program than the GPU does:

1. g++'s preprocessor and NVRTC's read the file differently (`#elifdef`, which C++17 lacks;
   `_Pragma` inside a conditional; file-name macros; CUDA's keywords, which are macros in NVRTC).
   Proof: NVRTC compiles the preprocessed text to the same PTX as the student's own file.
2. g++ preprocesses that text again when it builds the program, with its own macros and the CPU
   runtime's (threadIdx, __syncthreads, ...). A directive that appears only after macro
   expansion, or a name that is a macro in that build and not in NVRTC, would change it there.
   Proof: the text holds no directive but line markers and loop-unrolling pragmas, and no name
   that the build defines as a macro other than CUDA's own, which the runtime maps faithfully.

Anything else is refused with the construct and its line in the student's file."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from grader.backends import nvrtc
from grader.lexing import Token, tokens
from grader.source import KernelSource

CUDA_MACROS = frozenset(
    {
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
        "__global__", "__device__", "__host__", "__noinline__", "__forceinline__",
        "__restrict__", "__launch_bounds__", "__align__", "__constant__", "__shared__",
        "__syncthreads", "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
        "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync", "__syncthreads_count",
        "__syncthreads_and", "__syncthreads_or",
    }
)  # fmt: skip
"""Names the CPU runtime defines as macros on purpose: CUDA's keywords and built-ins."""
_PREPROCESSOR_NAMES = frozenset(
    {
        "__LINE__", "__FILE__", "__DATE__", "__TIME__", "__TIMESTAMP__", "__COUNTER__",
        "__BASE_FILE__", "__FILE_NAME__", "__INCLUDE_LEVEL__", "__VA_ARGS__", "__VA_OPT__",
        "_Pragma", "defined", "__has_include", "__has_include_next", "__has_cpp_attribute",
        "__has_attribute", "__has_builtin", "__has_feature", "__has_extension",
    }
)  # fmt: skip
"""Names g++ gives meaning in every preprocessing pass, though `-dM` does not list them."""
_UNROLL = re.compile(r"^(unroll(\s+\S+)?|nounroll)$")
_MARKER = re.compile(r'^\s*#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')
_PTX_ARCH = "--gpu-architecture=compute_90"
_CONSTRUCTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\s*(#|%:)\s*elif(n?def)\b"), "#elifdef/#elifndef (C++23; NVRTC reads C++17)"),
    (re.compile(r"\b_Pragma\b"), "_Pragma"),
    (re.compile(r"\b(__FILE__|__BASE_FILE__|__LINE__)\b"), "a file-name or line macro"),
    (re.compile(r"\b(push|pop)_macro\b"), "#pragma push_macro/pop_macro"),
    (
        re.compile(r"^\s*#.*\b(__global__|__device__|__shared__|__host__|__constant__)\b"),
        "a CUDA keyword tested by the preprocessor (a macro in NVRTC, not in g++)",
    ),
)


class NotSameProgramError(Exception):
    """The CPU build would not run the program NVRTC compiled; the message says where and why."""


def prove_same_program(
    source: KernelSource, defines: Mapping[str, int], text: str, build_macros: frozenset[str]
) -> str:
    """Raise NotSameProgramError unless `text` (the file as the CPU backend preprocessed it) is the
    program NVRTC compiles from `source` with `defines`. `build_macros`: every macro name defined
    where g++ builds the text. Returns NVRTC's PTX of the file ("" where NVRTC refuses it)."""
    lines = line_map(text)
    problem = _second_pass_problem(text, lines, source.display_name, build_macros)
    if problem:
        raise NotSameProgramError(problem)
    options = [_PTX_ARCH, "-std=c++17"]
    original = _ptx(source.text, source.display_name, [*options, *_defines(defines)])
    if original is None:  # NVRTC's own verdict on the file is given by the compile check
        return ""
    rebuilt = _ptx(text, source.display_name, options)
    if rebuilt != original:
        raise NotSameProgramError(_where_they_differ(source, defines, text))
    called = set(_EXTERN_FUNCTION.findall(original))
    if called & _DEVICE_HEAP:  # new too: NVRTC's PTX calls malloc for it
        raise NotSameProgramError(
            f"{source.display_name}: calls malloc() or new: what a GPU's device heap gives "
            "depends on how many threads hold blocks at once, which the CPU backend cannot "
            "reproduce (red team, round 10)"
        )
    outside = sorted(called - _DRIVER_FUNCTIONS)
    if outside:
        raise NotSameProgramError(
            f"{source.display_name}: calls '{outside[0]}', which it declares but does not "
            "define: no GPU can load such a kernel, and the CPU backend would call the host's "
            "function of that name"
        )
    trap = _trap_problem(source, defines, original)
    if trap:
        raise NotSameProgramError(trap)
    return original


def _trap_problem(source: KernelSource, defines: Mapping[str, int], ptx: str) -> str:
    """Why a `trap` in NVRTC's PTX keeps the kernel off the CPU, or "". NVVM writes one where it
    proves the code undefined (an atomic on a local variable, a store through a null pointer):
    a GPU stops the launch if a thread gets there; g++'s build runs something else there (the
    atomic, say), so a kernel failed on a GPU and passed on the CPU. `__trap()` itself builds
    nothing on the CPU."""
    if not _TRAP.search(ptx):
        return ""
    options = [_PTX_ARCH, "-std=c++17", "-lineinfo", *_defines(defines)]
    line = _trap_line(list(_ptx_lines(_ptx(source.text, source.display_name, options) or "")))
    where = f"{source.display_name}:{line}" if line else source.display_name
    return (
        f"{where}: NVRTC compiled this to a trap, which stops the launch on a GPU if a thread "
        "gets there: code it found undefined, such as an atomic on a local variable or a store "
        "through a null pointer; the CPU backend would run something else in its place"
    )


def _trap_line(statements: list[str]) -> int | None:
    """The student's line of the first trap in PTX with line information: the `.loc` over it,
    or where NVVM put it in a block of its own (line 0), the line of the first branch there."""
    line, label = 0, ""
    for statement in statements:
        if statement.startswith(".loc"):
            line = _loc_line(statement)
        elif statement.endswith(":"):
            label = statement[:-1]
        elif _TRAP.match(statement):
            if line or not label:
                return line or None
            branch = re.compile(rf"\bbra(?:\.uni)?\s+{re.escape(label)}\s*;")
            line = 0
            for earlier in statements:
                if earlier.startswith(".loc"):
                    line = _loc_line(earlier)
                elif branch.search(earlier):
                    return line or None
            return None
    return None


_TRAP = re.compile(r"^\s*(?:@!?%\w+\s+)?trap\s*;", re.MULTILINE)
"""PTX's `trap;` instruction (perhaps under a predicate)."""
_EXTERN_FUNCTION = re.compile(r"^\s*\.extern\s+\.func\s+(?:\([^)]*\)\s*)?(\w+)", re.MULTILINE)
_DEVICE_HEAP = frozenset({"malloc", "__cuda_syscall_aligned_malloc"})
"""What NVRTC's PTX calls for the device heap: malloc and new, and for an over-aligned type's new
or `__nv_aligned_device_malloc`, the aligned one (red team, round 11: it was told "no GPU can load
such a kernel")."""
_DRIVER_FUNCTIONS = frozenset({"vprintf", "free", "__assertfail", *_DEVICE_HEAP})
"""What device code may call without defining it: printf, malloc/free and assert, which the
CUDA driver provides (and the CPU runtime emulates, but for malloc, which it leaves to a GPU)."""


def _defines(defines: Mapping[str, int]) -> list[str]:
    return [f"-D{name}={value}" for name, value in sorted(defines.items())]


def line_map(text: str) -> list[int]:
    """For each line of the preprocessed text (1-based index), the student's line it came from."""
    mapped = [0]
    current = 1
    for line in text.split("\n"):
        marker = _MARKER.match(line)
        mapped.append(current)
        current = int(marker.group(1)) if marker else current + 1
    return mapped


def _second_pass_problem(text: str, lines: list[int], name: str, macros: frozenset[str]) -> str:
    """What g++'s second preprocessing pass (the build) would change in the text, if anything."""
    at_line_start = True
    directive: list[Token] = []
    for token in tokens(text):
        if token.kind == "newline":
            if directive:
                problem = _directive_problem(directive, name)
                if problem:
                    return f"{name}:{lines[directive[0].line]}: {problem}"
            directive, at_line_start = [], True
            continue
        if directive or (at_line_start and token.text == "#"):
            directive.append(token)
        elif token.kind == "identifier" and (
            token.text in _PREPROCESSOR_NAMES
            or (token.text in macros and token.text not in CUDA_MACROS)
        ):
            return (
                f"{name}:{lines[token.line]}: '{token.text}' means something else to the CPU "
                "backend's C++ build than to NVRTC (a macro there); rename it"
            )
        at_line_start = False
    return ""


def _directive_problem(directive: list[Token], name: str) -> str:
    words = [t.text for t in directive[1:]]
    if words and directive[1].kind == "number":
        marker = directive[2].text if len(directive) > 2 else ""
        if marker in (f'"{name}"', '"<built-in>"', '"<command-line>"'):
            return ""
        return "a line marker made by a macro is not supported by the CPU backend"
    if words[:1] == ["pragma"] and _UNROLL.match(" ".join(words[1:3])) and len(words) <= 3:
        return ""
    if words[:1] == ["pragma"]:
        return (
            f"#pragma {' '.join(words[1:3])} is not supported by the CPU backend "
            "(only #pragma unroll and #pragma nounroll are)"
        )
    return (
        "a preprocessing directive that appears only after macro expansion "
        f"('# {' '.join(words[:2])}'): NVRTC does not treat it as a directive"
    )


def _ptx(text: str, name: str, options: list[str]) -> str | None:
    """NVRTC's PTX for `text`, None when it does not compile."""
    return nvrtc.compile_ptx(text, name, options)


def _where_they_differ(source: KernelSource, defines: Mapping[str, int], text: str) -> str:
    """The refusal's message: the student's line where the two programs part, and the construct
    on it the grader recognises."""
    options = [_PTX_ARCH, "-std=c++17", "-lineinfo"]
    original = _ptx(source.text, source.display_name, [*options, *_defines(defines)]) or ""
    rebuilt = _ptx(text, source.display_name, options) or ""
    line = _first_difference_line(original, rebuilt)
    construct = _construct(source.text, line)
    where = f"{source.display_name}:{line}" if line else source.display_name
    return (
        f"{where}: the CPU backend's g++ reads this file differently from NVRTC, so it would not "
        f"run the program the GPU runs (the file uses {construct}); rewrite it with plain "
        "#if/#ifdef on macros of your own"
    )


def _ptx_lines(ptx: str) -> Iterator[str]:
    return (line.strip() for line in ptx.splitlines() if not line.strip().startswith(".file"))


def _first_difference_line(original: str, rebuilt: str) -> int | None:
    """The first of the student's lines (from PTX's .loc) with code in one program and not in
    the other; else the last line before the two programs first differ."""
    lines_of = [
        {_loc_line(x) for x in _ptx_lines(p) if x.startswith(".loc")} for p in (original, rebuilt)
    ]
    only_one = (lines_of[0] ^ lines_of[1]) - {0}  # line 0: code of the compiler's own
    if only_one:
        return min(only_one)
    line: int | None = None
    for ours, theirs in zip(_ptx_lines(original), _ptx_lines(rebuilt), strict=False):
        if ours != theirs:
            return line
        if ours.startswith(".loc"):
            line = _loc_line(ours)
    return line


def _loc_line(loc: str) -> int:
    return int(loc.split()[2])


def _construct(text: str, line: int | None) -> str:
    source_lines = text.splitlines()
    nearby = [source_lines[line - 1]] if line and line <= len(source_lines) else []
    for candidates in (nearby, source_lines):
        for pattern, what in _CONSTRUCTS:
            if any(pattern.search(candidate) for candidate in candidates):
                return what
    return "a construct the two preprocessors treat differently"

"""The block's shared memory: NVRTC's `__shared__` variables (its PTX) against where g++ put
them in the kernel's object (`readelf -W -S -s`). The CPU build runs a kernel only where the two
agree: every variable in the block's memory (the gg_shared sections, which the runtime copies
per block, fills and guards), and laid out as a GPU lays them out (ptxas: in the PTX's order, each
at its own alignment), so that an access past one array reaches what it reaches on a GPU, and
one past the last faults as there. ptxas lays out each kernel's apart, from what it reaches, and
then not always in the PTX's order: it puts what a function it calls (one that stays a function:
called through a pointer, say) names after the kernel's own. A file with several kernels that
reach shared variables, or a function that names one, is left to a GPU (red team, rounds 16 to
22)."""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass

from grader.backends.cpu_symbols import ObjectLayout
from grader.backends.cpu_unit import SHARED_GAP_LIMIT, shared_gap
from grader.backends.cpu_unsupported import closing_bracket

SHARED_SECTION = "gg_shared"
CONSTANT_SECTION = "gg_constant"


@dataclass(frozen=True)
class NvrtcShared:
    """NVRTC's `__shared__` variables, from its PTX (not `extern` ones)."""

    names: tuple[str, ...]
    """Their names as the PTX gives them, in its order."""
    sizes: tuple[int, ...] | None
    """Their sizes in the PTX's order; None where a declaration is not one this module reads."""
    alignment: int
    """The strictest alignment of one; 0 where there are none."""
    alignments: tuple[int, ...] = ()
    """Each one's, in the PTX's order (1 where the PTX gives none)."""
    kernels: tuple[str, ...] = ()
    """The kernels (`.entry`) that may reach one of them: their own, or through a call."""
    functions: tuple[str, ...] = ()
    """The functions (`.func`, what NVVM did not inline) that name one of them."""


_PTX_SHARED_LINE = re.compile(r"^[ \t]*\.shared\b.*$", re.MULTILINE)
_PTX_SHARED_DECLARATION = re.compile(
    r"[ \t]*\.shared[ \t]+(?:\.align[ \t]+(\d+)[ \t]+)?(?:\.v(\d)[ \t]+)?\.[a-z]+(\d+)[ \t]+"
    r"([\w$]+)((?:\[\d+\])*)[ \t]*;[ \t]*"
)


def nvrtc_shared(ptx: str) -> NvrtcShared:
    """What NVRTC's PTX declares `.shared`: `.shared .align 4 .b8 NAME[20];`, a vector, a scalar."""
    names: list[str] = []
    sizes: list[int] | None = []
    alignments: list[int] = []
    for line in _PTX_SHARED_LINE.finditer(ptx):
        found = _PTX_SHARED_DECLARATION.fullmatch(line.group())
        if found is None:
            sizes = None
            continue
        align, lanes, bits, name, dimensions = found.groups()
        size = int(lanes or 1) * int(bits) // 8
        for extent in re.findall(r"\d+", dimensions):
            size *= int(extent)
        names.append(name)
        alignments.append(int(align or 1))
        if sizes is not None:
            sizes.append(size)
    read = None if sizes is None else tuple(sizes)
    return NvrtcShared(
        tuple(names), read, max(alignments, default=0), tuple(alignments),
        *_reaching(ptx, names),
    )  # fmt: skip


_FUNCTION_HEAD = re.compile(
    r"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.(entry|func)\b[ \t]*(?:\([^)]*\)[ \t]*)?"
    r"([\w$]+)[ \t]*\(",
    re.MULTILINE,
)


def _reaching(ptx: str, names: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The kernels of the PTX whose body names one of `names`, or calls a function (which may),
    and the functions whose body names one: ptxas lays out each kernel's shared memory apart,
    from what it reaches, and a called function's variables after the kernel's own."""
    kernels: list[str] = []
    functions: list[str] = []
    for head in _FUNCTION_HEAD.finditer(ptx):
        opening = ptx.find("{", head.end())
        if opening < 0 or ";" in ptx[head.end() : opening]:  # a declaration: no body of its own
            continue
        body = ptx[opening : closing_bracket(ptx, opening, "{", "}")]
        names_one = any(n in body for n in names)
        if head.group(1) == "func" and names_one:
            functions.append(head.group(2))
        elif head.group(1) == "entry" and (names_one or re.search(r"\bcall(?:\.uni)?\b", body)):
            kernels.append(head.group(2))
    return tuple(kernels), tuple(functions)


def refusal(layout: ObjectLayout, nvrtc: NvrtcShared, display_name: str) -> str:
    """Why the CPU build cannot run the kernel whose object is `layout` alike, or ""."""
    if len(nvrtc.kernels) > 1:
        return (
            f"{display_name}: several kernels that reach __shared__ variables "
            f"({', '.join(_function_names(nvrtc.kernels))}): a GPU lays out each one's shared "
            "memory apart, the CPU backend one for the file; keep only the graded kernel's"
        )
    if nvrtc.functions:
        return (
            f"{display_name}: __shared__ variables in a function that NVRTC does not inline "
            f"({', '.join(_function_names(nvrtc.functions))}: called through a pointer, or "
            "__noinline__; or given a __shared__ array's address): a GPU places them after "
            "the kernel's own, the CPU backend where they are declared; declare them in the "
            "kernel, or let the function be inlined"
        )
    elsewhere = static_elsewhere(layout)
    placed: list[Array] = []
    gpu: list[Array] = []
    if elsewhere is None:
        if nvrtc.sizes is None:
            unread = "a __shared__ declaration in NVRTC's PTX the CPU backend can't read"
            return f"{display_name}: {unread}"
        try:
            placed, gpu = gpp_arrays(layout), gpu_arrays(nvrtc)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            return f"{display_name}: the names of the __shared__ arrays could not be read ({exc})"
        missing = [name for name, _, _ in gpu if name not in {n for n, _, _ in placed}]
        elsewhere = _short(missing[0]) if missing else None
    if elsewhere:  # a generic lambda's static, say: g++ drops the section of a template's
        return (
            f"{display_name}: a variable that g++ does not place in the block's shared memory "
            f"({elsewhere}): a __shared__ one in a generic lambda or a template, or a static "
            "one in a function? Declare __shared__ variables in the kernel or in a __device__ "
            "function that is not a template"
        )
    if placed != gpu:
        return (
            f"{display_name}: __shared__ arrays that g++ lays out otherwise than a GPU "
            f"({_places(placed)}, where a GPU has {_places(gpu)}): one that NVVM removes "
            "(written but never read, or only ever given one value; or an unused __device__ "
            "function's), arrays in several functions, or of different alignments (declare "
            "the most aligned first)? The CPU backend cannot run an access past one alike"
        )
    size, alignment = shared_arrays(layout)
    if shared_gap(size, alignment) > SHARED_GAP_LIMIT:
        return (
            f"{display_name}: __shared__ arrays aligned to {alignment} bytes, which the CPU "
            "backend cannot place so that an access past the last one faults, as on a GPU"
        )
    return ""


Array = tuple[str, int, int]
"""An array of the block's shared memory: its name (demangled, NVRTC's decorations of internal
linkage taken off), its offset from the first one's, its size."""


def gpu_arrays(nvrtc: NvrtcShared) -> list[Array]:
    """Where ptxas puts NVRTC's arrays: in the PTX's order, each at its own alignment after the
    one before. NVVM splits a small array into its elements (`int mine[2]` into `mine_$_0` and
    `mine_$_1`), which lie where it lay: one array here."""
    arrays: list[Array] = []
    end = 0
    names = readable(nvrtc.names)
    split = [_SPLIT.search(name) is not None for name in nvrtc.names]
    pieces = zip(names, nvrtc.sizes or (), nvrtc.alignments, split, strict=True)
    for name, size, alignment, piece in pieces:
        offset = -(-end // alignment) * alignment
        if piece and arrays and arrays[-1][0] == name and sum(arrays[-1][1:]) == offset:
            arrays[-1] = (name, arrays[-1][1], arrays[-1][2] + size)
        else:
            arrays.append((name, offset, size))
        end = offset + size
    return arrays


def gpp_arrays(layout: ObjectLayout) -> list[Array]:
    """g++'s arrays in the block's shared memory, in its order."""
    variables = layout.in_section(SHARED_SECTION)
    names = readable(tuple(v.name for v in variables))
    base = variables[0].offset if variables else 0
    return [(n, v.offset - base, v.size) for n, v in zip(names, variables, strict=True)]


_SPLIT = re.compile(r"_\$_\d+$")
_INTERNAL = re.compile(r"\b_INTERNAL_\w+::")


@functools.lru_cache(maxsize=64)
def readable(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` demangled (c++filt), as both compilers would write them: without NVRTC's
    `_INTERNAL_<hash>::` on what has internal linkage (a `static` function's variables, an unnamed
    namespace's: red team, rounds 18 and 20) and the suffix of an element NVVM split off."""
    if not names:
        return ()
    done = subprocess.run(
        ["c++filt"], input="".join(_SPLIT.sub("", n) + "\n" for n in names), capture_output=True,
        text=True, timeout=60, check=True,
    )  # fmt: skip
    demangled = done.stdout.splitlines()
    if len(demangled) != len(names):
        raise ValueError("c++filt gave another number of names")
    return tuple(_INTERNAL.sub("", name) for name in demangled)


def _function_names(functions: tuple[str, ...]) -> list[str]:
    """The functions' names as the file spells them (without parameters), the first three."""
    try:
        return [name.split("(")[0] for name in readable(functions[:3])]
    except (OSError, subprocess.SubprocessError, ValueError):
        return list(functions[:3])


def _short(name: str) -> str:
    """A demangled name without its scopes: `matmul_tiled(...)::a_tile` is `a_tile`."""
    return name.rsplit("::", 1)[-1]


def _places(arrays: list[Array]) -> str:
    shown = ", ".join(f"{_short(name)} at {offset}" for name, offset, _ in arrays[:6])
    return (shown + (", ..." if len(arrays) > 6 else "")) or "none"


def shared_arrays(layout: ObjectLayout) -> tuple[int, int]:
    """The size and alignment of the object's `__shared__` arrays (its gg_shared sections,
    together, aligned as the strictest; 0 and 1 where it has none)."""
    size, alignment = 0, 1
    for section in layout.sections.values():
        if section.name == SHARED_SECTION:
            alignment = max(alignment, section.alignment)
            size = -(-size // alignment) * alignment + section.size
    return size, alignment


def static_elsewhere(layout: ObjectLayout) -> str | None:
    """A function's static variable, or a template's, that the object defines in writable
    memory outside the block's shared memory and the `__constant__` variables, None where there
    is none. Such a variable is one copy for every block: where it is an escaped `__shared__` one,
    NVRTC names it otherwise when it has internal linkage (`_INTERNAL_<hash>`) (red team, rounds
    18 and 19). A `__device__` variable at namespace scope is neither (`_ZZ` names a function's
    static; a template's is UNIQUE, in a group)."""
    for variable in layout.variables:
        section = layout.sections[variable.section]
        writable = "W" in section.flags and not section.name.startswith(".data.rel.ro")
        if not writable or section.name in (SHARED_SECTION, CONSTANT_SECTION):
            continue
        if variable.name.startswith("_ZZ") or variable.binding == "UNIQUE" or "G" in section.flags:
            return variable.name
    return None

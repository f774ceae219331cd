"""The block's shared memory: NVRTC's `__shared__` variables (its PTX) against where g++ put
them in the kernel's object (`readelf -W -S -s`). The CPU build runs a kernel only where the two
agree: every variable in the block's memory (the gg_shared sections, which the runtime copies
per block, fills and guards), and laid out as a GPU lays them out, so that an access past one
array reaches what it reaches on a GPU, and one past the last faults as there."""

from __future__ import annotations

import itertools
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.backends.cpu_unit import SHARED_GAP_LIMIT, shared_gap


@dataclass(frozen=True)
class NvrtcShared:
    """NVRTC's `__shared__` variables, from its PTX (not `extern` ones)."""

    names: frozenset[str]
    size: int | None
    """Their bytes together; None where a declaration is not one `ptx_shared_bytes` reads."""
    alignment: int
    """The strictest alignment of one; 0 where there are none."""


def nvrtc_shared(ptx: str) -> NvrtcShared:
    return NvrtcShared(ptx_shared_names(ptx), ptx_shared_bytes(ptx), ptx_shared_alignment(ptx))


def refusal(listing: str, nvrtc: NvrtcShared, checked: bool, display_name: str) -> str:
    """Why the CPU build cannot run the kernel whose object `listing` lists alike, or ""."""
    placed = gg_shared_bytes(listing)
    elsewhere = shared_elsewhere(listing, nvrtc.names)
    if elsewhere:
        elsewhere = f"({elsewhere})"
    elif nvrtc.size is None:
        return (
            f"{display_name}: a __shared__ declaration in NVRTC's PTX the CPU backend cannot read"
        )
    elif placed < nvrtc.size:
        # by size: NVRTC and g++ name a variable of internal linkage apart (red team, round 18);
        # g++ may keep one that NVVM drops as unused, never the other way round
        elsewhere = f"(g++ placed {placed} of the {nvrtc.size} bytes NVRTC declares)"
    if elsewhere:  # a generic lambda's static, say: g++ drops the section of a template's
        return (
            f"{display_name}: __shared__ variables that g++ does not place in the block's shared "
            f"memory {elsewhere}, in a generic lambda or a template?: declare them in the kernel "
            "or in a __device__ function that is not a template"
        )
    padded = None if checked else padded_shared(listing)
    if padded:  # (the checked build's sanitizers put redzones between arrays, and watch them)
        return (
            f"{display_name}: __shared__ arrays that g++ lays out apart ({padded}), where a GPU "
            "packs them: the CPU backend cannot run an access past one alike"
        )
    size, alignment = shared_arrays(listing)
    if shared_gap(size, alignment) > SHARED_GAP_LIMIT:
        return (
            f"{display_name}: __shared__ arrays aligned to {alignment} bytes, which the CPU "
            "backend cannot place so that an access past the last one faults, as on a GPU"
        )
    return ""


def object_listing(obj: Path) -> str:
    """`readelf -W -S -s` of `obj`: its sections and its symbols, which the checks of its
    `__shared__` arrays below read (one run for all of them)."""
    return subprocess.run(
        ["readelf", "-W", "-S", "-s", str(obj)], capture_output=True, text=True, timeout=60,
        check=True,
    ).stdout  # fmt: skip


def shared_arrays(listing: str) -> tuple[int, int]:
    """The size and alignment of the object's `__shared__` arrays (its gg_shared sections,
    together, aligned as the strictest; 0 and 1 where it has none), from `object_listing`."""
    size, alignment = 0, 1
    for line in listing.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 10 and fields[1] == "gg_shared":
            alignment = max(alignment, int(fields[-1]))
            size = -(-size // alignment) * alignment + int(fields[5], 16)
    return size, alignment


_PTX_SHARED = re.compile(r"^\s*\.shared\s+(?:\.align\s+\d+\s+)?\.\w+\s+([\w$]+)", re.MULTILINE)


def ptx_shared_names(ptx: str) -> frozenset[str]:
    """The `__shared__` variables NVRTC's PTX declares (not `extern` ones)."""
    return frozenset(_PTX_SHARED.findall(ptx))


_PTX_SHARED_ALIGN = re.compile(r"^\s*\.shared\s+\.align\s+(\d+)\s", re.MULTILINE)


def ptx_shared_alignment(ptx: str) -> int:
    """The strictest alignment NVRTC's PTX gives a `__shared__` variable (not `extern` ones), 0
    where it declares none: what the CPU build aligns every one of them to (cpu_unit's
    compile_command), so that arrays of one alignment lie packed as a GPU lays them out."""
    return max((int(found) for found in _PTX_SHARED_ALIGN.findall(ptx)), default=0)


_PTX_SHARED_DECLARATION = re.compile(
    r"^[ \t]*\.shared[ \t]+(?:\.align[ \t]+\d+[ \t]+)?(?:\.v(\d)[ \t]+)?\.[a-z]+(\d+)[ \t]+"
    r"[\w$]+((?:\[\d+\])*)[ \t]*;",
    re.MULTILINE,
)
_PTX_SHARED_LINE = re.compile(r"^[ \t]*\.shared\b", re.MULTILINE)


def ptx_shared_bytes(ptx: str) -> int | None:
    """The bytes of every `__shared__` variable NVRTC's PTX declares (not `extern` ones), None
    where a declaration is not one this reads (`.shared .align 4 .b8 name[20];`, a vector, a
    scalar)."""
    total = 0
    found = _PTX_SHARED_DECLARATION.findall(ptx)
    if len(found) != len(_PTX_SHARED_LINE.findall(ptx)):
        return None
    for lanes, bits, dimensions in found:
        size = int(lanes or 1) * int(bits) // 8
        for extent in re.findall(r"\d+", dimensions):
            size *= int(extent)
        total += size
    return total


def gg_shared_bytes(listing: str) -> int:
    """The bytes of the variables the object (`object_listing`) defines in its gg_shared
    sections: the block's shared memory, padding not counted."""
    indices = _gg_shared_indices(listing)
    total = 0
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[3] == "OBJECT" and fields[6] in indices:
            total += int(fields[2], 0)
    return total


def shared_elsewhere(listing: str, names: frozenset[str]) -> str | None:
    """One of `names` (NVRTC's `__shared__` variables) that the object (`object_listing`)
    defines outside its gg_shared sections, None where there is none: g++ ignores the section of
    a template's static, a generic lambda's too, and put its array in .bss, one copy for every
    block (red team, round 17: a wrong kernel passed 100/100, a right one failed)."""
    shared = _gg_shared_indices(listing)
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[7] in names and fields[6] not in shared:
            return fields[7]
    return None


def _gg_shared_indices(listing: str) -> set[str]:
    """The indices of the gg_shared sections in `readelf -S` output."""
    indices = set()
    for line in listing.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 2 and fields[1] == "gg_shared":
            indices.add(fields[0].strip("[]"))
    return indices


def padded_shared(listing: str) -> str | None:
    """The first `__shared__` array of the object (`object_listing`) that g++ laid out with
    padding after it, before the
    next ("NAME: SIZE bytes, then PAD bytes of padding"), None where they lie back to back. A GPU
    packs them at their own alignment; g++ aligns an array of 32 bytes or more to 32 (of 16 to
    16): a read past `float bias[5]` reached 0xFF padding here, a value of the next array on a
    GPU (red team, round 16: 100/100 on the CPU, 10/100 on a GPU)."""
    indices = _gg_shared_indices(listing)
    arrays = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[3] == "OBJECT" and fields[6] in indices:
            arrays.append((fields[6], int(fields[1], 16), int(fields[2], 0), fields[7]))
    arrays.sort()
    for (section, at, size, name), following in itertools.pairwise(arrays):
        if following[0] == section and following[1] > at + size:
            return f"{name}: {size} bytes, then {following[1] - at - size} bytes of padding"
    return None

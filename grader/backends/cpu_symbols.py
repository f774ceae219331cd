"""What a student's file adds to the CPU program, read off the object g++ compiled from the
kernel's unit (cpu_unit), before it is linked with the runtime's.

Nothing of it may run before or after the kernel: a `constructor` attribute however spelled,
or a host variable's dynamic initializer (NVRTC drops both, g++ runs them at start-up) shows as
a start-up or exit section of the object. Nor may it take the place of a function the runtime or
the libraries define: the object's symbols are all made internal but the kernel's
(cpu_unit.localize_commands), so only the kernel NVRTC named must be found in it."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from pathlib import Path

_INIT_SECTIONS = (".preinit_array", ".init_array", ".fini_array", ".ctors", ".dtors")
_SANITIZER_SECTIONS = frozenset({".init_array.00099", ".fini_array.00099"})
"""What the checked build's sanitizers add to every object with variables (AddressSanitizer
registers them at start-up, at priority 99); a file's own start-up code has no priority (the
attribute that gives one is refused from the source)."""


def defined_symbols(obj: Path) -> frozenset[str]:
    """Every symbol `obj` defines (as the linker names them), whatever its linkage."""
    listing = subprocess.run(
        ["nm", "--defined-only", str(obj)], capture_output=True, text=True, timeout=60,
        check=True,
    ).stdout  # fmt: skip
    return frozenset(line.split()[-1] for line in listing.splitlines() if len(line.split()) == 3)


def start_up_sections(obj: Path) -> list[str]:
    """The sections of `obj` whose entries run before or after `main`."""
    sections = subprocess.run(
        ["readelf", "-W", "-S", str(obj)], capture_output=True, text=True, timeout=60,
        check=True,
    ).stdout  # fmt: skip
    found = []
    for line in sections.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 1 and fields[1].startswith(_INIT_SECTIONS):
            found.append(fields[1])
    return found


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


def trespass(obj: Path, checked: bool, display_name: str) -> str | None:
    """Why the student's object runs code outside its kernel, None when it does not."""
    allowed = _SANITIZER_SECTIONS if checked else frozenset()
    for section in start_up_sections(obj):
        if section not in allowed:
            return (
                f"{display_name}: code that runs before or after the kernel ({section}: a "
                "variable's initializer that calls a function, or a constructor?) is not "
                "supported by the CPU backend"
            )
    return None


FIBER_STACK_USE = 192 * 1024
"""The most stack g++'s build of the student's unit may take, all its functions' frames together
(a bound on any chain of calls; recursion is left to a GPU): a CUDA thread's fiber has 256 KB
(cuda_cpu.hpp), less up to 16 KB of colouring and the runtime's own frames."""


_EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"', re.MULTILINE)


def _beside(obj: Path, suffix: str) -> str | None:
    """The text of the file g++ wrote beside `obj` with this suffix (None if there is none): read
    as a regular file only, never through a link (g++ ran in the sandbox)."""
    try:
        descriptor = os.open(obj.with_suffix(suffix), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, "rb") as file:
            return file.read(1 << 22).decode("utf-8", "replace")
    except OSError:
        return None


def recursive_function(obj: Path) -> str | None:
    """A function of `obj`'s unit that reaches itself through direct calls, from the call graph g++
    wrote beside it (-fcallgraph-info: `.ci`); "?" where there is none to read."""
    text = _beside(obj, ".ci")
    if text is None:
        return "?"
    calls: dict[str, set[str]] = {}
    for caller, callee in _EDGE.findall(text):
        calls.setdefault(caller, set()).add(callee)
    done: set[str] = set()
    for root in calls:
        path, on_path = [(root, iter(calls.get(root, ())))], {root}
        while path:
            function, callees = path[-1]
            callee = next(callees, None)
            if callee is None:
                path.pop()
                on_path.discard(function)
                done.add(function)
            elif callee in on_path:
                return callee
            elif callee not in done:
                path.append((callee, iter(calls.get(callee, ()))))
                on_path.add(callee)
    return None


def stack_use(obj: Path) -> int | None:
    """The bytes of stack every function of `obj`'s unit takes together, from the `.su` file g++
    wrote beside it (-fstack-usage); None where a frame is dynamic without a bound, or the file
    is missing or malformed."""
    text = _beside(obj, ".su")
    if text is None:
        return None
    total = 0
    for line in text.splitlines():
        fields = line.rsplit("\t", 2)
        if len(fields) != 3 or not fields[1].isdigit():
            return None
        if fields[2].startswith("dynamic") and "bounded" not in fields[2]:
            return None
        total += int(fields[1])
    return total


def oversized_stack(obj: Path, checked: bool, display_name: str) -> str | None:
    """Why the CPU's threads could not hold g++'s frames of the student's code, None when they
    can. ptxas's figure (compiler.CPU_STACK_LIMIT) is NVRTC's program; g++ may keep what NVVM
    removed: a right kernel's local array that NVRTC folded away overflowed the checked build's
    fibers (-O1) and failed (red team, round 12)."""
    build = "checked (-O1, sanitizers)" if checked else "fast (-O2)"
    recursive = recursive_function(obj)
    if recursive is not None:
        # NVVM turned a tail call into a loop that g++ -O1 keeps: a right kernel's recursion as
        # deep as K overflowed the fibers and failed (red team, round 13); ptxas leaves any other
        # recursion to a GPU before the build
        return (
            f"{display_name}: g++'s {build} build of it keeps a recursive call ({recursive}), "
            "which NVRTC may turn into a loop: the CPU backend's threads cannot hold its depth"
        )
    used = stack_use(obj)
    if used is not None and used <= FIBER_STACK_USE:
        return None
    size = "a stack it cannot size" if used is None else f"{used:,} bytes of stack"
    return (
        f"{display_name}: g++'s {build} build of it takes {size} a thread (a local array NVRTC "
        f"may remove), over the {FIBER_STACK_USE // 1024} KB the CPU backend's threads have"
    )

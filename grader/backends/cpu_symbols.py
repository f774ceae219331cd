"""What a student's file adds to the CPU program, read off the object g++ compiled from the
kernel's unit (cpu_unit), before it is linked with the runtime's.

Nothing of it may run before or after the kernel: a `constructor` attribute however spelled,
or a host variable's dynamic initializer (NVRTC drops both, g++ runs them at start-up) shows as
a start-up or exit section of the object. Nor may it take the place of a function the runtime or
the libraries define: the object's symbols are all made internal but the kernel's
(cpu_unit.localize_commands), so only the kernel NVRTC named must be found in it."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_INIT_SECTIONS = (".preinit_array", ".init_array", ".fini_array", ".ctors", ".dtors")
_SANITIZER_SECTIONS = frozenset({".init_array.00099", ".fini_array.00099"})
"""What the checked build's sanitizers add to every object with variables (AddressSanitizer
registers them at start-up, at priority 99); a file's own start-up code has no priority (the
attribute that gives one is refused from the source)."""


@dataclass(frozen=True)
class Section:
    name: str
    flags: str
    size: int
    alignment: int


@dataclass(frozen=True)
class Variable:
    name: str
    section: str
    """The index of its section."""
    offset: int
    size: int
    binding: str


@dataclass(frozen=True)
class ObjectLayout:
    """The sections, the variables (OBJECT symbols) and every symbol defined (as the linker names
    them, whatever their linkage) of a kernel's object."""

    sections: dict[str, Section]
    variables: tuple[Variable, ...]
    defined: frozenset[str]

    def in_section(self, name: str) -> list[Variable]:
        """The variables of every section called `name`, in their order there."""
        return sorted(
            (v for v in self.variables if self.sections[v.section].name == name),
            key=lambda v: (int(v.section), v.offset),
        )


def read_object(obj: Path) -> ObjectLayout:
    """`obj`'s sections and symbols: one run of `readelf -W -S -s` for every check of it."""
    return read_layout(
        subprocess.run(
            ["readelf", "-W", "-S", "-s", str(obj)], capture_output=True, text=True, timeout=60,
            check=True,
        ).stdout
    )  # fmt: skip


def read_layout(listing: str) -> ObjectLayout:
    """The sections and symbols `readelf -W -S -s` lists."""
    sections: dict[str, Section] = {}
    variables: list[Variable] = []
    defined: set[str] = set()
    for line in listing.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) >= 10 and re.fullmatch(r"\[\d+\]", fields[0]):
            # [Nr] Name Type Address Off Size ES [Flg] Lk Inf Al: no flags, no field
            flags = fields[7] if len(fields) == 11 else ""
            size, alignment = int(fields[5], 16), int(fields[-1])
            sections[fields[0].strip("[]")] = Section(fields[1], flags, size, alignment)
        elif len(fields) == 8 and fields[0].endswith(":") and fields[6] != "UND":
            # Num: Value Size Type Bind Vis Ndx Name
            defined.add(fields[7])
            if fields[3] == "OBJECT" and fields[6].isdigit():
                offset, size = int(fields[1], 16), int(fields[2], 0)
                variables.append(Variable(fields[7], fields[6], offset, size, fields[4]))
    known = tuple(v for v in variables if v.section in sections)
    return ObjectLayout(sections, known, frozenset(defined))


def start_up_sections(layout: ObjectLayout) -> list[str]:
    """The object's sections whose entries run before or after `main`."""
    return [s.name for s in layout.sections.values() if s.name.startswith(_INIT_SECTIONS)]


def trespass(layout: ObjectLayout, checked: bool, display_name: str) -> str | None:
    """Why the student's object runs code outside its kernel, None when it does not."""
    allowed = _SANITIZER_SECTIONS if checked else frozenset()
    for section in start_up_sections(layout):
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

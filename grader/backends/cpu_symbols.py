"""What a student's file adds to the CPU program, read off the built program: nothing of it may
run before or after the kernel, nor take the place of a function the C library or the runtime's
other libraries define.

The file is compiled together with the CPU runtime and harness, in one translation unit: the
runtime and the harness first, so that they bind every call before any of the file's
declarations exist (cpu_unit.unit_text). What the file can still do there shows in the program:
a `constructor` attribute however spelled (NVRTC drops a `__device__` function nothing calls,
g++ runs it at start-up) adds start-up or exit entries to those of the same program built
around an empty kernel, and a function with external linkage named like one the libraries
define or look for (`strtol`, `malloc`) would be linked in place of theirs."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

_INIT_SECTIONS = (".preinit_array", ".init_array", ".fini_array", ".ctors", ".dtors")


_GLOBAL_TYPES = frozenset("TWiDBRVGSu")


@dataclass(frozen=True)
class Symbols:
    """A program's start-up and exit entries (bytes per section) and the names it defines with
    external linkage, as the linker sees them (mangled); for the baseline, the names its linked
    programs take from outside (`reserved`, see linked_names)."""

    init_bytes: dict[str, int]
    globals: frozenset[str] = frozenset()
    reserved: frozenset[str] = frozenset()


def to_json(symbols: Symbols) -> str:
    return json.dumps(
        {
            "init_bytes": symbols.init_bytes,
            "globals": sorted(symbols.globals),
            "reserved": sorted(symbols.reserved),
        }
    )


def from_json(text: str) -> Symbols:
    """Symbols as to_json wrote them; ValueError for anything else."""
    data = json.loads(text)
    init_bytes, globals_, reserved = data["init_bytes"], data["globals"], data["reserved"]
    texts = [*init_bytes, *globals_, *reserved]
    if not all(isinstance(t, str) for t in texts) or not all(
        isinstance(v, int) for v in init_bytes.values()
    ):
        raise ValueError("not symbols")
    return Symbols(dict(init_bytes), frozenset(globals_), frozenset(reserved))


def read(program: Path) -> Symbols:
    sections = subprocess.run(
        ["readelf", "-W", "-S", str(program)], capture_output=True, text=True, timeout=60,
        check=True,
    ).stdout  # fmt: skip
    init_bytes = {}
    for line in sections.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] in _INIT_SECTIONS:
            init_bytes[fields[1]] = int(fields[5], 16)
    external = subprocess.run(
        ["nm", "--defined-only", "--extern-only", str(program)], capture_output=True, text=True,
        timeout=60, check=True,
    ).stdout  # fmt: skip
    globals_ = {
        parts[2] for parts in (line.split() for line in external.splitlines())
        if len(parts) == 3 and parts[1] in _GLOBAL_TYPES
    }  # fmt: skip
    return Symbols(init_bytes, frozenset(globals_))


def _dynamic_names(path: str, which: str) -> set[str]:
    listing = subprocess.run(
        ["nm", "-D", which, path], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.split()}


def linked_names(programs: list[Path]) -> frozenset[str]:
    """Every name the linked (baseline) programs take from outside themselves, and every name
    the shared libraries they load define or look for: a student's file that defines one with
    external linkage takes its place, for the program (`strtol`, which glibc's inline `atoi`
    calls at -O2; `__gmon_start__`, which the C start-up calls) and for the libraries themselves
    (`malloc`, which libstdc++'s `operator new` calls)."""
    names: set[str] = set()
    libraries: set[str] = set()
    for program in programs:
        names |= _dynamic_names(str(program), "--undefined-only")
        loaded = subprocess.run(
            ["ldd", str(program)], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        for line in loaded.splitlines():
            path = line.split("=>")[-1].strip().split(" (")[0]
            if path.startswith("/"):
                libraries.add(path)
    for library in sorted(libraries):  # what they define, and what they look for elsewhere
        names |= _dynamic_names(library, "--defined-only")
        names |= _dynamic_names(library, "--undefined-only")
    return frozenset(names)


def defines_any(program: Path, names: tuple[str, ...]) -> bool:
    """Whether `program` defines one of these symbols (as the linker names them)."""
    listing = subprocess.run(
        ["nm", "--defined-only", str(program)], capture_output=True, text=True, timeout=60,
        check=True,
    ).stdout  # fmt: skip
    defined = {line.split()[-1] for line in listing.splitlines() if len(line.split()) == 3}
    return any(name in defined for name in names)


def trespass(program: Path, baseline: Symbols, display_name: str) -> str | None:
    """Why the student's part of `program` reaches outside its kernel, None when it does not."""
    mine = read(program)
    for section, size in sorted(mine.init_bytes.items()):
        if size > baseline.init_bytes.get(section, 0):
            return (
                f"{display_name}: code that runs before or after the kernel ({section}: a "
                "constructor or destructor attribute?) is not supported by the CPU backend"
            )
    for name in sorted(mine.globals - baseline.globals):
        if name in baseline.reserved:
            return (
                f"{display_name}: defines '{_demangled(name)}', which the C library or the "
                "CPU backend's libraries define: the program would run it instead of theirs "
                "(rename it, or make it static)"
            )
    return None


def _demangled(name: str) -> str:
    done = subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=60)
    return done.stdout.strip() or name

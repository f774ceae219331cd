"""What a student's file adds to the CPU program, read off the built program: nothing of it may
run before or after the kernel, nor stand in for a function of the runtime's or the C library's.

The file is compiled together with the CPU runtime and harness, in one translation unit, so C++
lets it reach them in ways NVRTC never sees: a `constructor` attribute however spelled (NVRTC
drops a `__device__` function nothing calls, g++ runs it at start-up), or a template named like
a function the harness calls (`write`), which g++ may prefer to the C library's. Both show in
the program: more start-up or exit entries than the same program built around an empty kernel,
and functions of the student's with the name of one the baseline program defines or imports."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_RUNTIME_TEMPLATES = tuple(
    re.compile(pattern)
    for pattern in (
        r"(?P<t>.+) (?:max|min)<(?P=t)>\((?P=t), (?P=t)\)",
        r"std::common_type<(?P<a>[^,<>]+), (?P<b>[^,<>]+)>::type (?:max|min)<(?P=a), (?P=b)>"
        r"\((?P=a), (?P=b)\)",
        r"(?P<t>.+) (?:__ldg|__ldcg|__ldca|__ldcs|__ldlu|__ldcv)<(?P=t)>\((?P=t) const\*\)",
        r"void (?:__stcg|__stcs|__stwt|__stwb)<(?P<t>.+)>\((?P=t)\*, (?P=t)\)",
        r"(?P<t>.+) atomic(?:Add|Sub|Max|Min|Exch)<(?P=t)>\((?P=t)\*, (?P=t)\)",
        r"(?P<t>.+) atomicCAS<(?P=t)>\((?P=t)\*, (?P=t), (?P=t)\)",
    )
)
"""The runtime's own function templates that a kernel calls (cuda_cpu.hpp), as an instance of
each reads demangled: calling `max(1, 2)` adds `int max<int>(int, int)` to the program, which
is the runtime's. A file cannot define a function of that very name and signature itself: it
would be a second definition of the runtime's (g++ refuses it), or, as a specialisation, a
template NVRTC does not know (the compile check refuses it)."""

_INIT_SECTIONS = (".preinit_array", ".init_array", ".fini_array", ".ctors", ".dtors")
_FUNCTION_TYPES = frozenset("TtWwi")


_GLOBAL_TYPES = frozenset("TWiDBRVGSu")


@dataclass(frozen=True)
class Symbols:
    """A program's start-up and exit entries (bytes per section), the functions it defines (as
    nm prints them, demangled) and the base names of the functions it imports; the names it
    defines with external linkage, as the linker sees them (mangled); for the baseline, the
    names its linked programs take from outside (`reserved`, see linked_names)."""

    init_bytes: dict[str, int]
    defined: frozenset[str]
    imported: frozenset[str]
    globals: frozenset[str] = frozenset()
    reserved: frozenset[str] = frozenset()


_QUALIFIERS = re.compile(r"(?:\s*(?:const|volatile|&&|&|\[clone [^\]]*\]))+$")


def _before_last_group(text: str, opening: str, closing: str) -> str:
    """`text` without the bracketed group it ends with (matched from the end)."""
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        depth += {closing: 1, opening: -1}.get(text[index], 0)
        if depth == 0:
            return text[:index].rstrip()
    return text


def base_name(demangled: str) -> str:
    """`long write<int, char const*>(int, char const*)` -> `write`; `gg::launch()` -> `launch`;
    read from the end, past the parameters and template arguments, so that a return type
    (`decltype ({parm#3}+(0l)) write<...>(...)`) or a scope (`(anonymous namespace)::write`)
    with brackets of its own is not taken for the name (both hid a `write`: red team)."""
    text = _QUALIFIERS.sub("", demangled.replace("(anonymous namespace)", "{anonymous}"))
    if text.endswith(")"):
        text = _before_last_group(text, "(", ")")
    while text.endswith(">") and not text.endswith("operator>") and "<" in text:
        shorter = _before_last_group(text, "<", ">")
        if shorter == text:
            break
        text = shorter
    name = text.split("::")[-1].split()
    return name[-1] if name else demangled


_READABLE = re.compile(r"~?[A-Za-z_]\w*|operator\W.*|[\w\[\]]+")
"""What a function's base name looks like; anything else (brackets the reading above left) is
refused rather than guessed."""


def to_json(symbols: Symbols) -> str:
    return json.dumps(
        {
            "init_bytes": symbols.init_bytes,
            "defined": sorted(symbols.defined),
            "imported": sorted(symbols.imported),
            "globals": sorted(symbols.globals),
            "reserved": sorted(symbols.reserved),
        }
    )


def from_json(text: str) -> Symbols:
    """Symbols as to_json wrote them; ValueError for anything else."""
    data = json.loads(text)
    init_bytes, defined, imported = data["init_bytes"], data["defined"], data["imported"]
    globals_, reserved = data["globals"], data["reserved"]
    texts = [*init_bytes, *defined, *imported, *globals_, *reserved]
    if not all(isinstance(t, str) for t in texts) or not all(
        isinstance(v, int) for v in init_bytes.values()
    ):
        raise ValueError("not symbols")
    return Symbols(
        dict(init_bytes), frozenset(defined), frozenset(imported), frozenset(globals_),
        frozenset(reserved),
    )  # fmt: skip


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
    listing = subprocess.run(
        ["nm", "-C", str(program)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    defined: set[str] = set()
    imported: set[str] = set()
    for line in listing.splitlines():
        kind, _, name = line.strip().partition(" ")
        if kind in ("U", "w", "v"):  # a demangled name may hold spaces: `operator new[](...)`
            imported.add(base_name(name.split("@")[0]))
            continue
        parts = line.split(maxsplit=2)
        if len(parts) == 3 and parts[1] in _FUNCTION_TYPES:
            defined.add(parts[2])
    external = subprocess.run(
        ["nm", "--defined-only", "--extern-only", str(program)], capture_output=True, text=True,
        timeout=60, check=True,
    ).stdout  # fmt: skip
    globals_ = {
        parts[2] for parts in (line.split() for line in external.splitlines())
        if len(parts) == 3 and parts[1] in _GLOBAL_TYPES
    }  # fmt: skip
    return Symbols(init_bytes, frozenset(defined), frozenset(imported), frozenset(globals_))


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
    reserved = baseline.imported | {base_name(d) for d in baseline.defined}
    for added in sorted(mine.defined - baseline.defined):
        if any(pattern.fullmatch(added) for pattern in _RUNTIME_TEMPLATES):
            continue  # an instance of the runtime's own template, for the kernel's call
        name = base_name(added)
        if not _READABLE.fullmatch(name):
            return f"{display_name}: defines a function whose name the grader cannot read: {added}"
        if name in reserved:
            return (
                f"{display_name}: defines '{name}', a name the CPU backend's runtime calls: "
                "g++ could run it instead of the runtime's (rename it)"
            )
    return None


def _demangled(name: str) -> str:
    done = subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=60)
    return done.stdout.strip() or name

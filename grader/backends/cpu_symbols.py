"""What a student's file adds to the CPU program, read off the object g++ compiled from the
kernel's unit (cpu_unit), before it is linked with the runtime's.

Nothing of it may run before or after the kernel: a `constructor` attribute however spelled,
or a host variable's dynamic initializer (NVRTC drops both, g++ runs them at start-up) shows as
a start-up or exit section of the object. Nor may it take the place of a function the runtime or
the libraries define: the object's symbols are all made internal but the kernel's
(cpu_unit.localize_commands), so only the kernel NVRTC named must be found in it."""

from __future__ import annotations

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

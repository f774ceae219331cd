"""`__device__` variables at file scope: one copy for the whole grid, shared by every block.

A tile kept there instead of in `__shared__` memory is overwritten by other blocks running at
the same time: a classic bug that a GPU shows as scattered wrong values. When a kernel with such
variables fails a correctness check, the hint names them and their lines."""

from __future__ import annotations

from dataclasses import dataclass

from grader.lexing import tokens
from grader.source import KernelSource

_STOPS = frozenset({";", "(", "{", "=", "[", ","})


@dataclass(frozen=True)
class DeviceVariable:
    name: str
    line: int


def device_variables(source: KernelSource) -> list[DeviceVariable]:
    """Variables declared `__device__` at file scope (functions and `__constant__` excluded)."""
    items = [t for t in tokens(source.text) if t.kind != "newline"]
    found: list[DeviceVariable] = []
    depth = 0
    for i, token in enumerate(items):
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and token.text == "__device__":
            name = None
            j = i + 1
            while j < len(items) and items[j].text not in _STOPS:
                if items[j].kind == "identifier":
                    name = items[j]
                j += 1
            # `(` ends a function's name, `{` a type's body: neither is a variable
            if name is not None and j < len(items) and items[j].text not in ("(", "{"):
                found.append(DeviceVariable(name.text, name.line))
    return found


def shared_by_blocks_hint(source: KernelSource) -> str | None:
    """The hint for a failing kernel with file-scope `__device__` variables, or None."""
    variables = device_variables(source)
    if not variables:
        return None
    named = ", ".join(f"{v.name} (line {v.line})" for v in variables)
    return (
        f"{named}: __device__ variables have one copy for the whole grid, shared by every "
        "block running at the same time. A tile kept there is overwritten by other blocks; "
        "per-block tiles belong in __shared__ memory, inside the kernel."
    )

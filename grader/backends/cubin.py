"""What a cubin (the ELF file NVRTC writes) holds, read off its section headers, not off the
compiler's log: the log quotes the student's source lines in its warnings, and a comment that read
like ptxas's own figures was taken for them (red team, round 12)."""

from __future__ import annotations

import struct

_GLOBAL_SECTIONS = (".nv.global",)
"""The sections of a module's `__device__` variables: `.nv.global` (zeroed) and `.nv.global.init`
(with initial values)."""


def section_sizes(cubin: bytes) -> dict[str, int]:
    """Each section's name and size (ValueError for what is not a 64-bit little-endian ELF)."""
    if cubin[:4] != b"\x7fELF" or cubin[4:6] != b"\x02\x01":
        raise ValueError("not a 64-bit little-endian ELF file")
    try:
        (offset,) = struct.unpack_from("<Q", cubin, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
        headers = [
            struct.unpack_from("<IIQQQQ", cubin, offset + index * entry_size)
            for index in range(count)
        ]
        names_offset, names_size = headers[names_index][4], headers[names_index][5]
        names = cubin[names_offset : names_offset + names_size]
    except (struct.error, IndexError) as exc:
        raise ValueError(f"malformed ELF section headers ({exc})") from None
    sizes: dict[str, int] = {}
    for name_at, _, _, _, _, size in headers:
        end = names.find(b"\0", name_at)
        sizes[names[name_at:end].decode("ascii", "replace")] = size
    return sizes


def global_bytes(cubin: bytes) -> int:
    """The bytes of the module's `__device__` variables (ValueError for a malformed cubin)."""
    return sum(
        size
        for name, size in section_sizes(cubin).items()
        if any(name == s or name.startswith(f"{s}.") for s in _GLOBAL_SECTIONS)
    )

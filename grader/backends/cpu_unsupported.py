"""Constructs the CPU backend cannot run faithfully: refused with their line, never mis-run.
Read in the student's file and again in the file as NVRTC sees it (a macro may spell `asm`)."""

from __future__ import annotations

import re

from grader.lexing import blank_comments_and_literals
from grader.source import KernelSource

# Constructs the emulator cannot run faithfully: refused with their line, never mis-run.
_UNSUPPORTED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(asm|__asm__|__asm)\b"), "inline PTX (asm)"),
    (
        re.compile(r"\bcooperative_groups\b|\bcg::|\bthis_grid\b|\bthis_thread_block\b"),
        "cooperative groups",
    ),
    (re.compile(r"\bclock(64)?\s*\("), "clock()/clock64()"),
    (re.compile(r"\b__globaltimer\b|%globaltimer"), "the global timer"),
    (re.compile(r"<<<"), "a kernel launch inside a kernel (dynamic parallelism)"),
    (re.compile(r"\bwmma::|\bnvcuda\b|\bmma_sync\b"), "tensor-core operations (wmma)"),
    (re.compile(r"\b__nanosleep\b"), "__nanosleep()"),
    (re.compile(r"\b(tex1D|tex2D|tex3D|tex1Dfetch|surf2Dwrite)\b"), "textures and surfaces"),
    (
        re.compile(r"\b__(match_any|match_all|reduce_add|reduce_min|reduce_max)_sync\b"),
        "__match_*_sync / __reduce_*_sync",
    ),
    (
        re.compile(r"\bcuda(Malloc|Free|Memcpy|DeviceSynchronize)\b"),
        "the CUDA runtime API in device code",
    ),
    (re.compile(r"\b__activemask\b"), "__activemask()"),
)


def unsupported_constructs(source: KernelSource) -> list[str]:
    code = blank_comments_and_literals(source.text)
    found: list[str] = []
    for pattern, what in _UNSUPPORTED:
        match = pattern.search(code)
        if match:
            line = code.count("\n", 0, match.start()) + 1
            found.append(
                f"{source.display_name}:{line}: {what} is not supported by the CPU backend"
            )
    return found

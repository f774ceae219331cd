"""CUDA built-ins the CPU runtime does not provide, found in the kernel's source before any build:
a kernel NVRTC compiled that calls one is refused with its line (cpu_unsupported.py), so that a
GPU grading of the same file knows a CPU grading left its correctness to a GPU. g++ would only
say, while building, that the name is not declared."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re

from grader.backends.cpu_unit import KERNEL_HEADERS, RUNTIME_DIR
from grader.lexing import blank_comments_and_literals
from grader.program_cache import cache_dir, write_atomic

_CALLED = re.compile(r"(?<![\w.>:])(__[a-z]\w*|atomic\w+|[a-z]\w*)\s*\(")
"""A call of a name not reached through an object or a namespace (`x.norm(`, `std::norm(`)."""
_WORD_BEFORE = re.compile(r"(\w+)\s*$")
"""The word just before a name: a type or a qualifier where the file declares the name itself
(`int __mine(`, `#define __mine(`); a keyword where it calls it (`return __mul24(`)."""
_CALLING_WORDS = frozenset({"return", "case", "else", "do", "throw", "co_return", "co_yield"})
_COMPILER_OWN = re.compile(
    r"__attribute__|__attribute|__typeof__|__typeof|__alignof__|__alignof|__extension__|__asm__"
    r"|__asm|__declspec|__has_\w+|__builtin_\w+|__sync_\w+|__atomic_\w+|__int128|__restrict"
)
"""Names g++ itself knows (a `__builtin_` one it lacks fails its build, never mis-runs)."""
_CUDA_MATH_GPP_LACKS = frozenset(
    f"{name}{suffix}"
    for name in (
        "rcbrt", "sinpi", "cospi", "sincospi", "normcdf", "normcdfinv", "erfinv", "erfcinv",
        "erfcx", "norm3d", "rnorm3d", "norm4d", "rnorm4d", "rhypot", "norm", "rnorm",
        "cyl_bessel_i0", "cyl_bessel_i1",
    )
    for suffix in ("", "f")
) | {"fdividef", "rsqrt"}  # fmt: skip
"""CUDA's math functions without the leading underscores that <cmath> does not declare."""


@functools.cache
def _provided() -> frozenset[str]:
    """Every `__name` and `atomicName` the kernel's headers mention (what they define, and the
    few g++ names they use), with the names their macros paste together (`__fadd_##suffix`).
    Kept in the build cache under a hash of the headers: finding them takes a quarter of a
    second, which every grading process paid, a GPU one too (its compile check notes whether
    the CPU backend would refuse the kernel)."""
    headers = b"".join((RUNTIME_DIR / name).read_bytes() for name in KERNEL_HEADERS)
    kept = cache_dir() / f"cpu-builtins-{hashlib.sha256(headers).hexdigest()[:32]}.json"
    with contextlib.suppress(OSError, ValueError):
        return frozenset(json.loads(kept.read_text()))
    text = blank_comments_and_literals(headers.decode())
    names = set(re.findall(r"\b(__[a-z]\w*|atomic\w+)", text))
    for stem in re.findall(r"\b(__\w+?)_##suffix\b", text):
        names |= {f"{stem}_{mode}" for mode in ("rz", "ru", "rd")}
    with contextlib.suppress(OSError):
        write_atomic(kept, json.dumps(sorted(names)).encode())
    return frozenset(names)


def missing_builtin(code: str) -> tuple[int, str] | None:
    """Where `code` (comments and literals blanked) first calls a CUDA built-in the CPU runtime
    lacks, and its name; None where it calls none."""
    provided = _provided()
    for call in _CALLED.finditer(code):
        name = call.group(1)
        lacking = name.startswith(("__", "atomic")) and not _COMPILER_OWN.fullmatch(name)
        if not (lacking and name not in provided) and name not in _CUDA_MATH_GPP_LACKS:
            continue
        if _declared_here(code, name):
            continue
        return call.start(), name
    return None


def _declared_here(code: str, name: str) -> bool:
    """Whether the file declares or defines `name` itself (a function, a macro, a variable)."""
    for use in re.finditer(rf"(?<![\w.>:]){re.escape(name)}\b", code):
        before = _WORD_BEFORE.search(code[max(0, use.start() - 80) : use.start()])
        if before and before.group(1) not in _CALLING_WORDS:
            return True
    return False

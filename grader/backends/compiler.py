"""Compiling a kernel with NVRTC (grader.backends.nvrtc) into a cubin, cached by a hash of what
went in.

NVRTC runs without a GPU, so this works on any machine with the NVRTC library. It is only ever
given device code, and never an include path: the student's code does not run on the host.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from grader import __version__, program_cache
from grader.backends import cubin, nvrtc
from grader.program_cache import cache_dir
from grader.source import KernelSource, find_global_functions, find_refusals

DEFAULT_ARCH = "sm_90"  # the course's GPU (H200) when there is no device to ask
_DIAGNOSTIC = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<kind>catastrophic error|error|warning): (?P<text>.*)$"
)
_RESOURCES = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILLS = re.compile(r"(\d+) bytes spill stores")
_MAX_ERRORS_SHOWN = 3
_IGNORED_INITIALISATION = re.compile(r"^.+?\((\d+)\): warning #20054-D", re.MULTILINE)
_GPU_ONLY: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\((\d+)\): Warning: Cannot store to pointer that points to constant memory"),
        "a store to __constant__ memory: NVRTC compiles the kernel to a trap (its warning 'Cannot "
        "store to pointer that points to constant memory space'), so a GPU fails every launch; "
        "keep what the kernel writes in global or shared memory",
    ),
    (
        re.compile(r"\((\d+)\): warning #20208-D"),
        "long double, which NVRTC computes as double (its warning 20208-D) and g++ does not: "
        "use double",
    ),
)
"""NVRTC's warnings of what a GPU does that the CPU build would not: the CPU backend leaves such
a kernel to a GPU (red team, round 8: each passed on the CPU, and would fail on a GPU)."""
_UNSIZED_STACK = re.compile(
    r"Stack size for entry function '(\w+)' cannot be statically determined"
)
_PTXAS_START = re.compile(r"^ptxas info\s*: \d+ bytes gmem", re.MULTILINE)
"""ptxas's first line. Its part of the log comes after NVRTC's warnings, which quote the student's
lines (comments too): the figures are read from the last such line on, never before it."""
_ENTRY = re.compile(r"Compiling entry function '(\w+)'")
_STACK = re.compile(r"(\d+) bytes cumulative stack size|(\d+) bytes stack frame")
CPU_STACK_LIMIT = 128 * 1024
"""The most stack ptxas may give the kernel for the CPU backend to run it: half a fiber's stack
(cuda_cpu.hpp: 256 KB, less up to 16 KB of colouring, the runtime's frames and AddressSanitizer's
redzones; 224 KB ran in both builds). A GPU gives a thread up to 512 KB."""
CPU_GLOBAL_LIMIT = 1 << 30
"""The most bytes of `__device__` variables the CPU backend runs: its fast program
may use 8 GB of address space (sandbox.settings.MEMORY_BYTES), where a GPU has all its memory."""
_CACHE_FORMAT = 3
"""Part of every cache key: raise it when the cached messages' wording changes."""
_TOO_MUCH_SHARED = re.compile(r"too much shared data \((0x[0-9a-f]+) bytes, (0x[0-9a-f]+) max\)")


@dataclass(frozen=True)
class CompiledKernel:
    """A compiled kernel: the cubin on disk and the symbol to look up in it."""

    cubin_path: Path
    symbol: str
    name: str
    registers: int | None
    shared_bytes: int | None
    spill_bytes: int | None
    ignored_initialisation: int | None = None
    """The line of a `__shared__` variable whose constructor NVRTC leaves out (its warning
    20054-D): g++ would run it, and the destructor at exit (cpu.CpuBackend refuses the kernel)."""
    gpu_only: tuple[str, ...] = ()
    """What NVRTC warned a GPU does that g++'s build would not ("LINE: what"; _GPU_ONLY)."""
    global_bytes: int = 0
    """The file's `__device__` variables (the cubin's `.nv.global` sections): state that lasts
    from launch to launch, one copy for the module (the CPU backend runs such a kernel in one
    program)."""

    def left_out(self, display_name: str) -> list[str]:
        """What NVRTC compiled out that g++ would run: the CPU backend cannot run it alike (a
        kernel that tested whether its constructor ran passed on the CPU only: red team)."""
        problems = [f"{display_name}:{where}" for where in self.gpu_only]
        if self.global_bytes > CPU_GLOBAL_LIMIT:
            problems.append(
                f"{display_name}: {self.global_bytes:,} bytes of __device__ variables, over the "
                f"{CPU_GLOBAL_LIMIT >> 30} GB the CPU backend gives them (a GPU has all its memory)"
            )
        if self.ignored_initialisation is not None:
            problems.insert(
                0,
                f"{display_name}:{self.ignored_initialisation}: a __shared__ variable with a "
                "constructor, which NVRTC leaves out (its warning 20054-D) and g++ would run: "
                "give it a type without one, and set it in the kernel",
            )
        return problems


@dataclass(frozen=True)
class CompileFailure:
    """Why a kernel did not compile, in words for the student (file:line first)."""

    message: str


def nvrtc_options(arch: str, defines: Mapping[str, int]) -> list[str]:
    options = [
        f"--gpu-architecture={arch}",
        "-std=c++17",
        "--no-source-include",
        "-lineinfo",
        "-Xptxas=-v",
    ]
    options += [f"-D{name}={value}" for name, value in sorted(defines.items())]
    return options


def _nvrtc_version() -> str:
    major, minor = nvrtc.version()
    return f"{major}.{minor}"


def _format_diagnostics(log: str, source: KernelSource) -> str:
    """NVRTC's errors in the student's file, each with its line. Errors in any other file are
    counted, never quoted: their text could hold lines of a file on the grading machine."""
    source_lines = source.text.splitlines()
    errors: list[str] = []
    elsewhere = 0
    for raw in log.splitlines():
        match = _DIAGNOSTIC.match(raw.strip())
        if not match or match.group("kind") == "warning":
            continue
        if match.group("file") != source.display_name:
            elsewhere += 1
            continue
        line = int(match.group("line"))
        text = f"{source.display_name}:{line}: error: {match.group('text')}"
        if 0 < line <= len(source_lines):
            text += f"\n    {line} | {source_lines[line - 1].strip()}"
        errors.append(text)
    if elsewhere:
        errors.append(f"(and {elsewhere} error(s) in another file, not shown)")
    if not errors:
        return f"{source.display_name}: does not compile: {_assembler_error(log)}"
    shown = "\n".join(errors[:_MAX_ERRORS_SHOWN])
    more = len(errors) - _MAX_ERRORS_SHOWN
    return shown + (f"\n(and {more} more error(s))" if more > 0 else "")


def _assembler_error(log: str) -> str:
    """ptxas's error (resources: shared memory, registers), in words; else the log's tail."""
    log = log.replace("\x00", "")
    lines = [line.strip() for line in log.splitlines() if "error" in line or "fatal" in line]
    if not lines:
        return "\n" + "\n".join(log.strip().splitlines()[-5:])
    lines[0] = re.sub(r"^ptxas fatal\s*:\s*", "ptxas: ", lines[0])
    text = re.sub(r"^ptxas error\s*:\s*", "ptxas: ", lines[0])
    text = re.sub(r"Entry function '[^']*'", "the kernel", text)
    shared = _TOO_MUCH_SHARED.search(text)
    if shared:
        used, limit = (int(value, 16) for value in shared.groups())
        text += (
            f": {used:,} bytes of __shared__ arrays per block, over the {limit:,} bytes a kernel "
            "may declare statically"
        )
    return text


def _int_or_none(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    return int(match.group(1)) if match else None


def compile_kernel(
    source: KernelSource, name: str, defines: Mapping[str, int], arch: str = DEFAULT_ARCH
) -> CompiledKernel | CompileFailure:
    """Compile `name` from `source`; refused directives and missing kernels fail before NVRTC."""
    refusals = find_refusals(source)
    if refusals:
        first = refusals[0]
        return CompileFailure(f"{source.display_name}:{first.line}: {first.message}")
    kernels = find_global_functions(source)
    if name not in {k.name for k in kernels}:
        found = ", ".join(f"{k.name} (line {k.line})" for k in kernels) or "none"
        return CompileFailure(
            f"{source.display_name}: no __global__ function named {name!r}; "
            f"__global__ functions found: {found}. The exercise launches {name}."
        )

    options = nvrtc_options(arch, defines)
    key_material = json.dumps(
        [
            _CACHE_FORMAT,
            __version__,
            _nvrtc_version(),
            source.text,
            source.display_name,
            name,
            options,
        ]
    )
    key = hashlib.sha256(key_material.encode()).hexdigest()[:32]
    directory = cache_dir()
    cubin_path = directory / f"{key}.cubin"
    meta_path = directory / f"{key}.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        program_cache.touch(meta_path, cubin_path)
        if not meta["ok"]:
            return CompileFailure(meta["message"])
        if cubin_path.is_file():
            return _compiled(cubin_path, meta, name)

    built = nvrtc.compile_cubin(source.text, source.display_name, name, options)
    if isinstance(built, nvrtc.NvrtcErrors):
        failure = CompileFailure(_format_diagnostics(built.log, source))
        refused = {"ok": False, "message": failure.message}
        program_cache.write_atomic(meta_path, json.dumps(refused).encode())
        return failure
    log, symbol, cubin = built.log, built.symbol, built.binary
    meta = {"ok": True, "symbol": symbol, "log": log}
    program_cache.write_atomic(cubin_path, cubin)
    program_cache.write_atomic(meta_path, json.dumps(meta).encode())
    program_cache.evict()
    return _compiled(cubin_path, meta, name)


def _compiled(cubin_path: Path, meta: dict[str, str], name: str) -> CompiledKernel:
    log = _ptxas_part(meta["log"])
    return CompiledKernel(
        cubin_path=cubin_path,
        symbol=meta["symbol"],
        name=name,
        registers=_int_or_none(_RESOURCES, log),
        shared_bytes=_int_or_none(_SMEM, log) or 0,
        spill_bytes=_int_or_none(_SPILLS, log),
        ignored_initialisation=_int_or_none(_IGNORED_INITIALISATION, meta["log"]),
        gpu_only=_gpu_only(meta["log"], meta["symbol"]),
        global_bytes=_global_bytes(cubin_path),
    )


def _ptxas_part(log: str) -> str:
    """ptxas's lines of NVRTC's log ("" where it wrote none)."""
    starts = list(_PTXAS_START.finditer(log))
    return log[starts[-1].start() :] if starts else ""


def _global_bytes(cubin_path: Path) -> int:
    """The module's `__device__` variables, from the cubin's sections; 1 where it cannot be read
    (as if it had some: the CPU backend then runs every launch in one program, which is right
    either way)."""
    try:
        return cubin.global_bytes(cubin_path.read_bytes())
    except (OSError, ValueError):
        return 1


def _gpu_only(log: str, symbol: str) -> tuple[str, ...]:
    """What NVRTC's log says a GPU does that the CPU build would not, each as "LINE: what" (or
    ": what" without a line), at most one per kind."""
    found: list[str] = []
    for pattern, what in _GPU_ONLY:
        match = pattern.search(log)
        if match:
            found.append(f"{match.group(1)}: {what}")
    # ptxas names every entry function whose stack it cannot size: this one's, wherever it comes
    # (another kernel of the file named first hid it: red team, round 9). Its warnings come
    # before its figures: the whole log is read (one quoted in a comment only refuses)
    if any(unsized.group(1) == symbol for unsized in _UNSIZED_STACK.finditer(log)):
        # a GPU thread's stack is 1 KB by default; the CPU's fibers have 256 KB
        found.append(
            " recursion (or a call through a pointer), whose stack ptxas cannot size: a GPU "
            "thread's stack is 1 KB by default, and a deep call faults there, not on the CPU; "
            "use a loop"
        )
    stack = _entry_stack(_ptxas_part(log), symbol)  # a forged figure must not hide the real one
    if stack > CPU_STACK_LIMIT:
        found.append(
            f" {stack:,} bytes of stack a thread (ptxas's figure: local arrays, calls), over the "
            f"{CPU_STACK_LIMIT // 1024} KB the CPU backend's threads have; a GPU gives up to "
            "512 KB: keep large arrays in global or shared memory"
        )
    return tuple(found)


def _entry_stack(log: str, symbol: str) -> int:
    """The stack ptxas gives the kernel `symbol`: its cumulative size (with the functions it
    calls), else its own frame; 0 where the log says neither."""
    entries = list(_ENTRY.finditer(log))
    for index, entry in enumerate(entries):
        if entry.group(1) != symbol:
            continue
        end = entries[index + 1].start() if index + 1 < len(entries) else len(log)
        sizes = [int(a or b) for a, b in _STACK.findall(log, entry.end(), end)]
        return max(sizes, default=0)
    return 0

"""Building the CPU backend's two programs (fast: -O2; checked: AddressSanitizer and
UndefinedBehaviorSanitizer) from a student's file, once per distinct input.

The file is preprocessed as NVRTC sees it (`cpu_preprocess`), proven to be the program NVRTC
compiles (`cpu_equivalence`), then compiled by g++ in the sandbox with the CPU runtime. The
harness calls the kernel by the symbol NVRTC gave it (its mangled name), so the CPU runs the very
function the GPU launches, whatever else in the file shares its name.

Programs are cached under a hash of everything that goes into them (the student's text and
name, the defines, the runtime's files, the flags, the compiler's version, and the grader's code
that decides whether and how a file is built), never a path; see `grader.program_cache` for the
cap and eviction."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from grader import program_cache, sandbox
from grader.backends import cpu_shared_layout, cpu_symbols, nvrtc
from grader.backends.base import UnsupportedKernelError
from grader.backends.cpu_equivalence import NotSameProgramError, line_map, prove_same_program
from grader.backends.cpu_preprocess import PreprocessError, as_nvrtc_sees_it, preprocess_command
from grader.backends.cpu_unit import (
    BUILD_TIMEOUT_S,
    RUNTIME_DIR,
    build_macros,
    compile_command,
    kernel_symbols,
    kernel_unit_flags,
    link_command,
    localize_commands,
    runtime_key,
    runtime_objects,
    shared_pad_for,
    unit_text,
)
from grader.backends.cpu_unsupported import unsupported_constructs
from grader.errors import GraderError
from grader.source import KernelSource

_BUILD_FORMAT = "15: NVRTC's view proven by PTX; its symbol; unit apart; .su, .ci; PTX's alignment"
"""Part of every cached program's key: raise it when how programs are built changes."""


@dataclass(frozen=True)
class Program:
    path: Path
    checked: bool


@dataclass(frozen=True)
class Build:
    """Both programs of one kernel build, and what building them cost."""

    fast: Program
    checked: Program
    seconds: float
    cached: bool
    """True when both programs came from the cache (nothing was compiled)."""


def build_error(stderr: str, display_name: str) -> str:
    """g++'s first error about the student's own file; never text from any other file (an error
    inside a header or a host file would quote its lines)."""
    prefix = f"{display_name}:"
    for line in stderr.splitlines():
        if line.startswith(prefix) and "causes a section type conflict" in line:
            where = line.split(": error", 1)[0]
            return (
                f"{where}: __shared__ variables both in an inline function (or a struct's member "
                "function) and elsewhere, or __constant__ variables both const and not, are not "
                "supported by the CPU backend: declare __shared__ ones in the kernel or in "
                "__device__ functions that are not inline, and __constant__ ones all const or "
                "none"
            )
        if line.startswith(prefix) and "[-Werror=sequence-point]" in line:
            where = ":".join(line.split(":")[:2])
            return (
                f"{where}: a result that depends on the order its parts are evaluated in (a "
                "variable changed in one argument of a call, or one operand, and used in "
                "another): g++ evaluates a call's arguments right to left, NVRTC left to right; "
                "compute them into variables of their own first"
            )
        if line.startswith(prefix) and " error:" in line:
            return line[:300]
    return "g++ failed outside your file (a construct the CPU runtime does not support?)"


def _key(source: KernelSource, defines: Mapping[str, int], symbol: str, toolchain: str) -> str:
    material = json.dumps(
        [
            _BUILD_FORMAT,
            source.text,
            source.display_name,
            sorted(defines.items()),
            symbol,
            unit_text(""),
            runtime_key(toolchain),  # every file of cpu_runtime (the kernel's headers too)
            localize_commands(Path("kernel.o"), "kernel", Path("local.o")),
            kernel_unit_flags(False),  # the build's flags, and the kernel unit's checks
            kernel_unit_flags(True),
            preprocess_command(defines, Path("student.cu")),
            toolchain,
            nvrtc.version(),  # NVRTC's PTX: what the build aligns `__shared__` variables to
            _deciding_code(),
        ]
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


_DECIDING_MODULES = ("backends/cpu_*.py", "backends/nvrtc.py", "source.py", "lexing.py")
"""The grader's code that refuses a file or shapes its build (relative to the package)."""


@cache
def _deciding_code() -> str:
    """A hash of the grader's code that decides whether and how a file is built: a grader that
    refuses more than the last one must not run a program the last one built and cached (a
    kernel refused since would still run from the cache)."""
    package = Path(__file__).resolve().parent.parent
    files = sorted({p for pattern in _DECIDING_MODULES for p in package.glob(pattern)})
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.relative_to(package)}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:32]


def build(
    source: KernelSource,
    defines: Mapping[str, int],
    symbol: str,
    toolchain: str,
    checked_too: bool = True,
) -> Build:
    """Both programs for this kernel, from the cache or built now (UnsupportedKernelError when
    the CPU backend cannot run the file faithfully)."""
    started = time.monotonic()
    key = _key(source, defines, symbol, toolchain)
    directory = program_cache.cache_dir() / "cpu"
    fast = Program(directory / key, checked=False)
    checked = Program(directory / f"{key}-checked", checked=True)
    wanted = [fast, checked] if checked_too else [fast]
    if all(p.path.is_file() for p in wanted):
        program_cache.touch(*(p.path for p in wanted))
        return Build(fast, checked, time.monotonic() - started, cached=True)
    program_cache.make_private(directory)
    with sandbox.private_workdir("grader-build-") as work:
        text, ptx = _nvrtc_view(source, defines, work)
        unit = work / "unit.cpp"
        unit.write_text(unit_text(text))
        todo = [p for p in wanted if not p.path.is_file()]
        _compile(unit, todo, source.display_name, kernel_symbols(symbol), toolchain, ptx)
    program_cache.evict()
    return Build(fast, checked, time.monotonic() - started, cached=False)


def _nvrtc_view(source: KernelSource, defines: Mapping[str, int], work: Path) -> tuple[str, str]:
    """The file as NVRTC sees it, proven to be NVRTC's program, and NVRTC's PTX of it."""
    try:
        text = as_nvrtc_sees_it(source, defines, work)
    except PreprocessError as exc:
        why = build_error(str(exc), source.display_name)
        raise UnsupportedKernelError(f"the CPU backend cannot build this kernel: {why}") from None
    except subprocess.TimeoutExpired:
        raise UnsupportedKernelError(
            "the CPU backend's preprocessor did not finish: macros that expand without end?"
        ) from None
    hidden = unsupported_constructs(KernelSource(text, source.display_name))
    if hidden:
        # "name:LINE: what", LINE in the preprocessed text: the student's line is the one its
        # line markers name
        where, what = hidden[0].removeprefix(f"{source.display_name}:").split(": ", 1)
        line = line_map(text)[int(where)]
        raise UnsupportedKernelError(f"{source.display_name}:{line}: {what} (through a macro)")
    try:
        ptx = prove_same_program(source, defines, text, build_macros())
    except NotSameProgramError as exc:
        raise UnsupportedKernelError(str(exc)) from None
    return text, ptx


def _compile(
    unit: Path,
    programs: list[Program],
    display_name: str,
    kernel: tuple[str, ...],
    toolchain: str,
    ptx: str,
) -> None:
    """Compile the kernel's unit for each program side by side, then give its kernel the
    harness's symbol and everything else internal linkage, and link it with the runtime's
    object; all in the sandbox: g++ and its assembler read files named in the source (an
    `.incbin` spelled through a macro, say), and what they read would end up in the program.
    The runtime's files and objects are copied next to the unit: the sandbox sees nothing of the
    host but /usr and its work directory."""
    work = unit.parent
    runtime = work / "runtime"
    shutil.copytree(RUNTIME_DIR, runtime)
    runtime_objects(toolchain, runtime)
    shared = cpu_shared_layout.nvrtc_shared(ptx)
    running: list[tuple[Program, Path, subprocess.Popen[str]]] = []
    try:
        for program in programs:
            obj = work / f"kernel-{int(program.checked)}.o"
            process = sandbox.popen(
                compile_command(unit, runtime, obj, program.checked, shared.alignment), work,
                writable=True,
                memory=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                errors="replace",
            )  # fmt: skip
            running.append((program, obj, process))
    except GraderError:  # no isolation: the host's failure, not the kernel's
        for _, _, process in running:
            process.kill()
            process.communicate()
        raise
    failure = ""
    compiled: list[tuple[Program, Path]] = []
    for program, obj, process in running:
        try:
            _, stderr = process.communicate(timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            failure = failure or f"g++ did not finish within {BUILD_TIMEOUT_S} s"
            continue
        if process.returncode != 0:
            failure = failure or build_error(stderr, display_name)
            continue
        compiled.append((program, obj))
    built: list[tuple[Path, Path]] = []
    for program, obj in compiled if not failure else []:
        failure = _link(program, obj, runtime, kernel, display_name, shared)
        if failure:
            break
        built.append((work / f"program-{int(program.checked)}", program.path))
    if failure:
        raise UnsupportedKernelError(f"the CPU backend cannot build this kernel: {failure}")
    for output, target in built:
        _keep(output, target)


def _link(
    program: Program,
    obj: Path,
    runtime: Path,
    kernel: tuple[str, ...],
    display_name: str,
    shared: cpu_shared_layout.NvrtcShared,
) -> str:
    """Check the kernel's object, localize it and link the program; why not, or ""."""
    layout = cpu_symbols.read_object(obj)
    trespass = cpu_symbols.trespass(layout, program.checked, display_name)
    if trespass:
        return trespass
    oversized = cpu_symbols.oversized_stack(obj, program.checked, display_name)
    if oversized:
        return oversized
    found = [name for name in kernel if name in layout.defined]
    if not found:
        return "g++ built no kernel of the symbol NVRTC gave it"
    work = obj.parent
    local = obj.with_suffix(".local.o")
    output = work / f"program-{int(program.checked)}"
    refused = cpu_shared_layout.refusal(layout, shared, display_name)
    if refused:
        return refused
    size, alignment = cpu_shared_layout.shared_arrays(layout)
    pad = shared_pad_for(size, alignment)
    for command in (
        *localize_commands(obj, found[0], local),
        link_command(runtime, local, output, program.checked, pad),
    ):
        try:
            done = sandbox.run(command, work, timeout=BUILD_TIMEOUT_S, writable=True)
        except subprocess.TimeoutExpired:
            return f"{command[0]} did not finish within {BUILD_TIMEOUT_S} s"
        if done.returncode != 0:
            return build_error(done.stderr, display_name)
    return ""


def _keep(output: Path, target: Path) -> None:
    """Move a built program into the cache: only a regular file that g++ wrote, never a link the
    sandbox left (the grader runs as another user, root perhaps, and would follow it)."""
    with open(output, "rb", opener=_no_follow) as built:
        info = os.fstat(built.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise UnsupportedKernelError("the CPU backend's build left no program")
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as copy:
            shutil.copyfileobj(built, copy)
    temporary.chmod(0o755)
    os.replace(temporary, target)


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)

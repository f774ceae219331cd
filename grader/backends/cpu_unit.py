"""The translation unit g++ compiles for the CPU backend: the CPU runtime, the student's code
(with `extern __shared__` arrays translated), and the harness that calls the kernel by the symbol
NVRTC gave it; the flags of its two builds; and what the unit around an empty kernel defines,
against which a student's unit is read (cpu_symbols)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from grader import sandbox
from grader.backends import cpu_symbols
from grader.backends.base import UnsupportedKernelError
from grader.lexing import blank_comments_and_literals
from grader.program_cache import cache_dir, write_atomic
from grader.source import KernelSource

RUNTIME_DIR = Path(__file__).resolve().parent / "cpu_runtime"
HEADER = RUNTIME_DIR / "cuda_cpu.hpp"
INTRINSICS = RUNTIME_DIR / "cuda_cpu_intrinsics.hpp"
"""Included by HEADER: more of CUDA's intrinsics."""
FIBERS = RUNTIME_DIR / "cuda_cpu_fibers.hpp"
"""Included by HEADER: switching between fibers."""
HARNESS = RUNTIME_DIR / "harness_main.hpp"
LINKER_SCRIPT = "shared.ld"
"""In RUNTIME_DIR: the `__shared__` arrays' place, between guards (g++ -Wl,-T)."""
BUILD_TIMEOUT_S = 180

_EXTERN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][\w:<>]*(?:\s*\*)?)\s+(\w+)\s*\[\s*\]\s*;"
)


NOT_SANITIZED = ("signed-integer-overflow", "pointer-overflow")
"""UBSan checks the checked build leaves out, as a GPU has no such error: its integers and
addresses wrap (a kernel whose `int` wraps passes on an H100), and only an access outside
memory faults, which AddressSanitizer, the buffers' fences and the shared memory's guards catch.
Left in, they failed a kernel the GPU passes. (object-size stays: an access through a pointer
past the end of the `__shared__` array it came from. It fails some kernels a GPU passes, one
that reads from one array into the next, but it is the only check that sees past the arrays of
this one kernel when the file holds other kernels' arrays too, which the section lays out
beside them.)"""


def build_flags(checked: bool) -> list[str]:
    # -fcf-protection=none: the fibers' switch (cpu_runtime/cuda_cpu_fibers.hpp) moves return
    # addresses between stacks, which a shadow stack would stop (where g++ enables it by default)
    # -fno-toplevel-reorder: `__shared__` arrays lie in the order they are declared, as NVRTC
    # lays them out (g++ reverses it otherwise), so that an access past one array reaches the
    # same neighbour as on a GPU, and one past the last reaches shared.ld's guard
    common = [
        "-std=gnu++17",
        "-g",
        "-w",
        "-fno-strict-aliasing",
        "-pthread",
        "-fcf-protection=none",
        "-fno-toplevel-reorder",
    ]
    if checked:
        return [
            *common,
            "-O1",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
            f"-fno-sanitize={','.join(NOT_SANITIZED)}",
        ]
    return [*common, "-O2"]


PRELUDE = '#include <sys/resource.h>\n#include "cuda_cpu.hpp"\n'
"""What the unit starts with: the runtime, and what the harness needs."""


@functools.cache
def build_macros() -> frozenset[str]:
    """Every macro name defined where the CPU build compiles the student's code: g++'s own, its
    library's and the runtime's, in both builds (the sanitizers define a few more)."""
    names: set[str] = set()
    for checked in (False, True):
        done = subprocess.run(
            ["g++", *build_flags(checked), "-I", str(RUNTIME_DIR), "-dM", "-E", "-x", "c++", "-"],
            input=PRELUDE,
            capture_output=True,
            text=True,
            check=False,
        )
        names.update(line.split()[1].split("(")[0] for line in done.stdout.splitlines() if line)
    return frozenset(names)


def translate(text: str) -> str:
    """`extern __shared__ T name[];` becomes a pointer to the launch's dynamic shared buffer
    (same line, so line numbers are unchanged); in code only, never inside a string literal
    (`sizeof("extern __shared__ float x[];")` told g++'s build from NVRTC's: red team)."""
    blanked = blank_comments_and_literals(text)
    if len(blanked) != len(text):  # line splices (none in preprocessed text): no sure positions
        return text
    pieces: list[str] = []
    done = 0
    for match in _EXTERN_SHARED.finditer(blanked):
        pieces.append(text[done : match.start()])
        pieces.append(
            f"{match.group(1)} *const {match.group(2)} = "
            f"reinterpret_cast<{match.group(1)} *>(::gg::dynamic_shared());"
        )
        done = match.end()
    return "".join(pieces) + text[done:]


BASELINE = KernelSource(
    "__global__ void gg_baseline(const float *A, const float *B, float *C, int M, int K, int N)"
    " {}\n",
    "baseline.cu",
)
_BASELINE_SYMBOL = "_Z11gg_baselinePKfS0_Pfiii"


def kernel_symbols(symbol: str) -> tuple[str, ...]:
    """The names g++ may give the kernel NVRTC lowers to `symbol`: that one, and where the file
    declares the kernel `static`, the internal-linkage one (`_ZL...`), which NVRTC does not use."""
    return (symbol, f"_ZL{symbol[2:]}") if re.match(r"_Z\d", symbol) else (symbol,)


_ARGUMENTS = "const float *, const float *, float *, int, int, int"


def unit_text(text: str, symbol: str) -> str:
    """The runtime, then the harness, then the student's code: the harness is compiled before
    any declaration of the student's exists, so none can take part in its name lookup or
    overload resolution (a template `write` that beat the C library's in the harness's call,
    and a function named like the harness's reference to the kernel, each passed ex1 with an
    empty kernel: red team, round 4). The harness reaches the kernel by its symbol, weakly,
    through names the source scan refuses (`_GG...`); a `static __global__` kernel has another
    one in g++ (that it is there at all, cpu_build checks in the built unit)."""
    names = kernel_symbols(symbol)
    declarations = "".join(
        f'extern "C" void _GG_kernel_{i}({_ARGUMENTS}) __asm__("{name}") __attribute__((weak));\n'
        for i, name in enumerate(names)
    )
    first_defined = " ?: ".join(f"_GG_kernel_{i}" for i in range(len(names)))  # GNU's `a ?: b`
    return (
        PRELUDE
        + '#line 1 "grader-harness"\n'
        + declarations
        + "static void _GG_kernel(const float *a, const float *b, float *c, int m, int k, int n)"
        + f" {{\n    ({first_defined})(a, b, c, m, k, n);\n}}\n"
        + '#include "harness_main.hpp"\n'
        + translate(text)
    )


def symbols_command(unit: Path, runtime: Path, output: Path) -> list[str]:
    """The unit compiled without optimisation, to read what it defines: every function it uses
    is kept out of line there, however small (an optimised build inlines and drops them), and so
    is every inline function it defines, used or not. Not only those -O0 calls: at -O2 glibc's
    headers inline `atoi` into a call of `strtol`, which a file's own `inline strtol` would
    answer (a red-team finding against reading only what -O0 calls)."""
    return [
        "g++", *build_flags(False), "-O0", "-fkeep-static-functions", "-fkeep-inline-functions",
        "-I", str(runtime), "-DGG_KERNEL=_GG_kernel", "-c", str(unit), "-o", str(output),
    ]  # fmt: skip


@functools.cache
def baseline_symbols(toolchain: str) -> cpu_symbols.Symbols:
    """What the runtime and harness bring to a unit around an empty kernel, against which a
    student's unit is read (once per process; `toolchain` keys it). Kept in the build cache
    under a hash of all that makes them: building and reading them took 1.5 s, which every
    process that built a kernel paid before its own builds started."""
    kept = cache_dir() / f"cpu-baseline-{_baseline_key(toolchain)}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
        return cpu_symbols.from_json(kept.read_text())
    symbols = _read_baseline()
    with contextlib.suppress(OSError):
        write_atomic(kept, cpu_symbols.to_json(symbols).encode())
    return symbols


def _baseline_key(toolchain: str) -> str:
    """A hash of what the baseline's symbols come from: the unit, every file of the runtime,
    the commands, the compiler, the tools that read the object and the C library's version (its
    libraries' names are reserved)."""
    runtime = sorted((p.name, p.read_text()) for p in RUNTIME_DIR.iterdir() if p.is_file())
    tools = ""
    for tool in ("nm", "ldd"):  # missing, check_toolchain says so
        with contextlib.suppress(OSError):
            done = subprocess.run([tool, "--version"], capture_output=True, text=True)
            tools += done.stdout.partition("\n")[0]
    material = [
        unit_text(BASELINE.text, _BASELINE_SYMBOL),
        runtime,
        symbols_command(Path("unit.cpp"), Path("runtime"), Path("symbols.o")),
        program_command(Path("unit.cpp"), Path("runtime"), Path("fast"), False),
        program_command(Path("unit.cpp"), Path("runtime"), Path("checked"), True),
        "linked_names 3",
        toolchain,
        tools,
    ]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()[:32]


def program_command(unit: Path, runtime: Path, output: Path, checked: bool) -> list[str]:
    """g++ building one of the two programs (fast, or checked: with the sanitizers)."""
    return [
        "g++", *build_flags(checked), "-I", str(runtime), "-DGG_KERNEL=_GG_kernel", str(unit),
        "-o", str(output), "-lboost_context", f"-Wl,-T,{runtime / LINKER_SCRIPT}",
    ]  # fmt: skip


def _read_baseline() -> cpu_symbols.Symbols:
    """The unit around an empty kernel read for its symbols, and both its programs linked, for
    what they take from outside (cpu_symbols.linked_names)."""
    with sandbox.private_workdir("grader-baseline-") as work:
        unit = work / "unit.cpp"
        unit.write_text(unit_text(BASELINE.text, _BASELINE_SYMBOL))
        runtime = work / "runtime"
        shutil.copytree(RUNTIME_DIR, runtime)
        output = work / "symbols.o"
        programs = [work / "fast", work / "checked"]
        commands = [
            symbols_command(unit, runtime, output),
            *(program_command(unit, runtime, p, p.name == "checked") for p in programs),
        ]
        for command in commands:
            done = sandbox.run(command, work, timeout=BUILD_TIMEOUT_S, writable=True)
            if done.returncode != 0:
                raise UnsupportedKernelError(
                    f"the CPU runtime does not build: {done.stderr[-500:]}"
                )
        symbols = cpu_symbols.read(output)
        if symbols.init_bytes:
            # g++ gathers a unit's start-up code into one function, one entry: with the
            # runtime's own there, a file's would add none, and the check could not see it
            raise UnsupportedKernelError(
                f"the CPU runtime runs code at start-up ({sorted(symbols.init_bytes)}): "
                "a file's start-up code could not be told from it"
            )
        return replace(symbols, reserved=cpu_symbols.linked_names(programs))

"""The two units g++ compiles for the CPU backend, and how: the kernel's (cuda_kernel.hpp, then the
student's code, with `extern __shared__` arrays translated), compiled for each kernel; and the
runtime's with the harness (runtime.cpp), compiled once per toolchain and kept in the build cache.
The kernel's unit sees no header of the system's: only CUDA's names, declared as NVRTC declares
them. The programs are the two linked; the kernel reaches the runtime through a few `_GG_`
symbols, the harness the kernel through the symbol the grader gives it (localize_commands)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import subprocess
import tempfile
from pathlib import Path

from grader.backends.base import UnsupportedKernelError
from grader.lexing import blank_comments_and_literals
from grader.program_cache import cache_dir, touch, write_atomic

RUNTIME_DIR = Path(__file__).resolve().parent / "cpu_runtime"
KERNEL_HEADERS = ("cuda_kernel.hpp", "cuda_kernel_intrinsics.hpp", "cuda_cpu_types.hpp")
"""In RUNTIME_DIR: all that the kernel's unit includes."""
RUNTIME_UNIT = "runtime.cpp"
"""In RUNTIME_DIR: the runtime's and the harness's unit (it includes the other files there)."""
LINKER_SCRIPT = "shared.ld"
"""In RUNTIME_DIR: the `__shared__` arrays' place, between guards (g++ -Wl,-T)."""
DEVICE_NEW = {
    "_Znwm": "_GG_operator_new",
    "_Znam": "_GG_operator_new_array",
    "_ZnwmSt11align_val_t": "_GG_operator_new_aligned",
    "_ZnamSt11align_val_t": "_GG_operator_new_array_aligned",
}
"""`operator new` and `new[]` (C++17's aligned ones too) as the kernel's object names them, and the
runtime's functions they become (runtime.cpp): on a GPU they take the device heap, as malloc
does, which the CPU backend leaves to a GPU (red team, rounds 10 and 11)."""
KERNEL_ENTRY = "_GG_student_kernel"
"""The symbol the harness calls the kernel by (runtime.cpp), given to the kernel NVRTC named."""
BUILD_TIMEOUT_S = 180
SHARED_ALIGN_MACRO = "_GG_SHARED_ALIGN"
"""The macro cuda_kernel.hpp aligns every `__shared__` variable to where it is defined (a name
no student's file may use: grader/source.py refuses `_[A-Z]` names)."""

_EXTERN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][\w:<>]*(?:\s*\*)?)\s+(\w+)\s*\[\s*\]\s*;"
)


NOT_SANITIZED = ("signed-integer-overflow", "pointer-overflow", "shift-base")
"""UBSan checks the checked build leaves out, as a GPU has no such error: its integers and
addresses wrap (a kernel whose `int` wraps passes on an H100; a negative one shifted left is
PTX's `shl` of its bits), and only an access outside memory faults, which AddressSanitizer,
the buffers' fences and the shared memory's guards catch.
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


PRELUDE = '#include "cuda_kernel.hpp"\n'
"""What the kernel's unit starts with."""


FAST_CHECKS = ("alignment", "shift-exponent", "float-cast-overflow", "integer-divide-by-zero")
"""UBSan's checks the fast build's kernel unit keeps too (their handlers are the runtime's own,
runtime.cpp: the fast program links no sanitizer runtime), and the checked build adds the one
`undefined` lacks (float-cast-overflow). A misaligned load faults on a GPU, where x86 reads it:
a float4 read of a row of odd K passed the shapes only the fast build runs (red team, round
23). A shift by the type's width or more, a float out of an integer's range and an integer
division by zero each have a result on a GPU (PTX clamps the shift, saturates the conversion)
and another, or a crash, on x86: cpu_failures leaves such a kernel to a GPU."""


ORDER_ERRORS = "-Werror=sequence-point"
"""g++'s warning of an expression whose result depends on the order its parts are evaluated in
(`f(k++, k++)`, `a[k] * b[k++]`), made an error in the kernel's unit: g++ evaluates a call's
arguments right to left, NVRTC left to right, so the two compilers run different programs (red
team, round 25). The build's `-w` would hide it: the kernel's unit goes without."""


def kernel_unit_flags(checked: bool) -> list[str]:
    """g++'s flags for the kernel's unit: the build's (its warnings shown: ORDER_ERRORS), its
    UBSan checks (FAST_CHECKS), and no directory of the system's headers."""
    checks = ["float-cast-overflow"] if checked else list(FAST_CHECKS)
    sanitize = [f"-fsanitize={','.join(checks)}", "-fno-sanitize-recover=all"] if checks else []
    flags = [flag for flag in build_flags(checked) if flag != "-w"]
    return [*flags, ORDER_ERRORS, *sanitize, "-nostdinc"]


@functools.cache
def build_macros() -> frozenset[str]:
    """Every macro name defined where the CPU build compiles the student's code: g++'s own and
    cuda_kernel.hpp's, in both builds (the sanitizers define a few more)."""
    names: set[str] = set()
    for checked in (False, True):
        done = subprocess.run(
            ["g++", *kernel_unit_flags(checked), "-I", str(RUNTIME_DIR), "-dM", "-E", "-x", "c++",
             "-"],
            input=PRELUDE,
            capture_output=True,
            text=True,
            check=False,
        )  # fmt: skip
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


def kernel_symbols(symbol: str) -> tuple[str, ...]:
    """The names g++ may give the kernel NVRTC lowers to `symbol`: that one, and where the file
    declares the kernel `static`, the internal-linkage one (`_ZL...`), which NVRTC does not use."""
    return (symbol, f"_ZL{symbol[2:]}") if re.match(r"_Z\d", symbol) else (symbol,)


def unit_text(text: str) -> str:
    """The kernel's unit: CUDA's declarations (cuda_kernel.hpp), then the student's code. The
    runtime and the harness are not in it: compiled apart (runtime.cpp) before any declaration
    of the student's existed, none can take part in their name lookup or overload resolution (a
    template `write` that beat the C library's in the harness's call, and a function named like
    the harness's reference to the kernel, each passed ex1 with an empty kernel while they shared
    a unit: red team, round 4)."""
    return PRELUDE + translate(text)


def compile_command(
    unit: Path, runtime: Path, output: Path, checked: bool, shared_alignment: int = 0
) -> list[str]:
    """g++ compiling the kernel's unit to an object, for one of the two programs (fast, or
    checked: with the sanitizers), and beside it each function's stack frame and the calls
    between them (OUTPUT with the suffixes .su and .ci; cpu_symbols.oversized_stack).
    `shared_alignment`: what every `__shared__` variable is aligned to (cuda_kernel.hpp), the
    strictest alignment NVRTC gives one (cpu_shared_layout.nvrtc_shared); 0: g++'s own."""
    aligned = [f"-D{SHARED_ALIGN_MACRO}={shared_alignment}"] if shared_alignment > 0 else []
    return [
        "g++", *kernel_unit_flags(checked), *aligned, "-fstack-usage", "-fcallgraph-info",
        "-I", str(runtime), "-c", str(unit), "-o", str(output),
    ]  # fmt: skip


def localize_commands(obj: Path, kernel: str, output: Path) -> list[list[str]]:
    """objcopy giving the kernel (`kernel`, a symbol the object defines, internal where the file
    declares it `static`) the symbol the harness calls, then every other symbol of the object
    internal linkage: nothing the student's file defines can take the place of a function of
    the runtime's or the libraries' (`strtol`, which glibc's inline `atoi` calls; `malloc`,
    which `operator new` calls), whatever its name. The kernel's `new` is the runtime's too
    (DEVICE_NEW). (objcopy takes no `--globalize-symbol` with `--keep-global-symbol`: two runs.)"""
    renamed = [f"--redefine-sym={name}={to}" for name, to in DEVICE_NEW.items()]
    return [
        ["objcopy", f"--redefine-sym={kernel}={KERNEL_ENTRY}",
         f"--globalize-symbol={KERNEL_ENTRY}", *renamed, str(obj), str(output)],
        ["objcopy", f"--keep-global-symbol={KERNEL_ENTRY}", str(output)],
    ]  # fmt: skip


def link_command(
    runtime: Path, obj: Path, output: Path, checked: bool, shared_pad: int = 0
) -> list[str]:
    """g++ linking the runtime's object (in `runtime`, with the linker script) and the kernel's.
    The runtime's comes first: where both hold a copy of one inline function, the linker keeps
    the first. `shared_pad`: bytes below the block's shared memory that make its arrays end on a
    page (shared_pad_for)."""
    return [
        "g++", *build_flags(checked), str(runtime / runtime_object_name(checked)), str(obj),
        "-o", str(output), "-lboost_context", f"-Wl,-T,{runtime / LINKER_SCRIPT}",
        f"-Wl,--defsym=_GG_shared_pad={shared_pad}",
    ]  # fmt: skip


PAGE = 4096


def shared_pad_for(size: int, alignment: int) -> int:
    """The bytes to leave below a block's shared memory (shared.ld) so that its `__shared__`
    arrays, `size` bytes that start on a multiple of `alignment`, end on a page: there the
    fast build's guard starts, pages no access may reach, as a GPU faults one just past the last
    array (red team, round 14). Where the alignment allows no exact end, the arrays end less than
    `alignment` bytes below the page (the runtime fills those bytes and checks them)."""
    alignment = max(1, alignment)
    return (-size % PAGE) // alignment * alignment


SHARED_GAP_LIMIT = 32
"""The most bytes the arrays may end below the page (shared_pad_for): there the fast build fills
and checks, but cannot fault a read. g++ aligns a large array to 32 bytes; a larger `__align__`
left up to a page (red team, round 15: 2048 bytes after a 4096-aligned array, where an off-by-one
whose reads a comparison filtered passed 100/100)."""


def shared_gap(size: int, alignment: int) -> int:
    """The bytes between the end of the arrays and the page, once padded (shared_pad_for)."""
    return -(size + shared_pad_for(size, alignment)) % PAGE


def runtime_object_name(checked: bool) -> str:
    return "runtime-checked.o" if checked else "runtime.o"


def runtime_command(runtime: Path, output: Path, checked: bool) -> list[str]:
    """g++ compiling the runtime's unit (runtime.cpp, with the harness) to an object."""
    return [
        "g++", *build_flags(checked), "-I", str(runtime), "-c", str(runtime / RUNTIME_UNIT),
        "-o", str(output),
    ]  # fmt: skip


def runtime_key(toolchain: str) -> str:
    """A hash of what the runtime's objects come from: every file of the runtime, the commands
    and the compiler."""
    files = sorted(
        (p.name, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in RUNTIME_DIR.iterdir()
        if p.is_file()
    )
    material = [
        files,
        runtime_command(Path("runtime"), Path("runtime.o"), False),
        runtime_command(Path("runtime"), Path("runtime.o"), True),
        toolchain,
    ]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()[:32]


def runtime_objects(toolchain: str, into: Path) -> None:
    """Put the runtime's two objects in `into`, from the build cache, or compiled now and kept
    there (both side by side: about a second each, once per toolchain and runtime). An entry is
    the object and its SHA-256 after it: a damaged one is compiled again."""
    key = runtime_key(toolchain)
    todo: list[tuple[Path, Path, bool]] = []
    for checked in (False, True):
        kept = cache_dir() / f"cpu-{key}-{runtime_object_name(checked)}"
        target = into / runtime_object_name(checked)
        with contextlib.suppress(OSError):
            entry = kept.read_bytes()
            if len(entry) > 32 and hashlib.sha256(entry[:-32]).digest() == entry[-32:]:
                target.write_bytes(entry[:-32])
                touch(kept)
                continue
        todo.append((kept, target, checked))
    with tempfile.TemporaryDirectory(prefix="grader-runtime-") as work:
        running = [
            (kept, target, subprocess.Popen(
                runtime_command(RUNTIME_DIR, Path(work) / target.name, checked),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            ))
            for kept, target, checked in todo
        ]  # fmt: skip
        try:
            for kept, target, process in running:
                _, stderr = process.communicate(timeout=BUILD_TIMEOUT_S)
                if process.returncode != 0:
                    raise UnsupportedKernelError(f"the CPU runtime does not build: {stderr[-500:]}")
                built = (Path(work) / target.name).read_bytes()
                with contextlib.suppress(OSError):
                    write_atomic(kept, built + hashlib.sha256(built).digest())
                target.write_bytes(built)
        finally:  # a failure or a timeout above leaves the other compiler running: not past here
            for _, _, process in running:
                if process.poll() is None:
                    process.kill()
                    process.communicate()  # reaped, its pipe closed

"""The CPU backend: the student's unchanged CUDA file, compiled by g++ together with a header that
maps CUDA's built-ins onto fibers (cpu_runtime/cuda_cpu.hpp) and a harness, runs as a child
program. Two builds: fast (-O2) and checked (AddressSanitizer + UndefinedBehaviorSanitizer, used
for small shapes, where it names the kernel line of an out-of-bounds access)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from grader import sandbox
from grader.backends.base import DoubleArray, FloatArray, GemmLaunch, GemmOutput, KernelRuntimeError
from grader.backends.cpu_failures import explain_failure
from grader.backends.cpu_preprocess import PreprocessError, as_nvrtc_sees_it
from grader.compiler import CompiledKernel, cache_dir
from grader.errors import GraderError
from grader.lexing import blank_comments_and_literals
from grader.results import DeviceInfo
from grader.source import KernelSource

RUNTIME_DIR = Path(__file__).resolve().parent / "cpu_runtime"
HEADER = RUNTIME_DIR / "cuda_cpu.hpp"
HARNESS = RUNTIME_DIR / "harness_main.hpp"
# Shapes up to this many multiply-adds run in the checked build (about 12x slower).
CHECKED_LIMIT = 1 << 21
_ORDERS = ("ascending", "descending", "shuffled")
_BUILD_TIMEOUT_S = 120
_BUILD_FORMAT = "3: built in the sandbox from the file as NVRTC sees it"
"""Part of every cached program's key: raise it when how programs are built changes."""

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
_EXTERN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][\w:<>]*(?:\s*\*)?)\s+(\w+)\s*\[\s*\]\s*;"
)


class CpuUnavailableError(Exception):
    """g++ or Boost.Context is missing; the message says what to install."""


class UnsupportedKernelError(Exception):
    """The kernel uses something the CPU backend cannot run; the message names it and its line."""


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


def translate(source: KernelSource) -> str:
    """The source as g++ compiles it: `extern __shared__ T name[];` becomes a pointer to the
    launch's dynamic shared buffer (same line, so line numbers are unchanged)."""
    return _EXTERN_SHARED.sub(
        lambda m: (
            f"{m.group(1)} *const {m.group(2)} = "
            f"reinterpret_cast<{m.group(1)} *>(::gg::dynamic_shared());"
        ),
        source.text,
    )


def check_toolchain() -> str:
    """A description of the toolchain, or CpuUnavailableError saying what to install."""
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if compiler is None:
        raise CpuUnavailableError(
            "no C++ compiler (g++): install it (Debian/Ubuntu: apt-get install g++)"
        )
    if (
        not Path("/usr/include/boost/context/detail/fcontext.hpp").is_file()
        and not _boost_elsewhere()
    ):
        raise CpuUnavailableError(
            "Boost.Context is missing: install it "
            "(Debian/Ubuntu: apt-get install libboost-context-dev)"
        )
    version = subprocess.run(
        [compiler, "-dumpfullversion"], capture_output=True, text=True, check=False
    )
    return f"{Path(compiler).name} {version.stdout.strip()}"


def _boost_elsewhere() -> bool:
    return any(
        (Path(p) / "boost/context/detail/fcontext.hpp").is_file()
        for p in os.environ.get("CPLUS_INCLUDE_PATH", "").split(":")
        if p
    )


@dataclass(frozen=True)
class _Program:
    path: Path
    checked: bool


_STDERR_KEPT = 256 * 1024


def _read_capped(stream: IO[bytes]) -> str:
    """The start and the end of a possibly huge stream (sanitizer reports come at the end)."""
    size = stream.seek(0, os.SEEK_END)
    half = _STDERR_KEPT // 2
    stream.seek(0)
    if size <= _STDERR_KEPT:
        return stream.read().decode("utf-8", "replace")
    head = stream.read(half)
    stream.seek(size - half)
    tail = stream.read(half)
    return (head + b"\n...\n" + tail).decode("utf-8", "replace")


def _build_error(stderr: str, display_name: str) -> str:
    """g++'s first error about the student's own file; never text from any other file (an error
    inside a header or a host file would quote its lines)."""
    prefix = f"{display_name}:"
    for line in stderr.splitlines():
        if line.startswith(prefix) and "error" in line:
            return line[:300]
    return "g++ failed outside your file (a construct the CPU runtime does not support?)"


def _flags(checked: bool) -> list[str]:
    common = ["-std=gnu++17", "-g", "-w", "-fno-strict-aliasing", "-pthread"]
    if checked:
        return [
            *common,
            "-O1",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
        ]
    return [*common, "-O2"]


class CpuBackend:
    """Runs kernels on the CPU, one CUDA thread per fiber."""

    def __init__(self) -> None:
        toolchain = check_toolchain()
        self._device = DeviceInfo(
            backend="cpu",
            name="CPU emulation",
            detail=f"{toolchain}, Boost.Context fibers; orders ascending, descending, shuffled",
        )
        self._programs: dict[bool, _Program] = {}
        self._source: KernelSource | None = None
        self._as_nvrtc_sees: str = ""
        """The student's file as NVRTC sees it (preprocessed once per prepare)."""
        self._kernel_name = ""
        self._defines: dict[str, int] = {}
        self._launches = 0
        self.warnings: list[str] = []

    @property
    def device(self) -> DeviceInfo:
        return self._device

    @property
    def arch(self) -> str:
        return "sm_90"

    def prepare(
        self, source: KernelSource, compiled: CompiledKernel, defines: dict[str, int]
    ) -> None:
        problems = unsupported_constructs(source)
        if problems:
            raise UnsupportedKernelError(problems[0])
        self._source, self._kernel_name, self._defines = source, compiled.name, dict(defines)
        self._as_nvrtc_sees = self._as_nvrtc_sees_it()
        self._programs = {}  # a new kernel (or the same one with other defines): rebuild
        for checked in (True, False):  # build now, inside the compile step's time
            self._program(checked)

    def _program(self, checked: bool) -> _Program:
        if checked in self._programs:
            return self._programs[checked]
        assert self._source is not None, "prepare() first"
        unit = (
            f'#include "{HEADER}"\n'
            + translate(KernelSource(self._as_nvrtc_sees, self._source.display_name))
            + f'\n#line 1 "grader-harness"\n#include "{HARNESS}"\n'
        )
        defines = [f"-D{k}={v}" for k, v in sorted(self._defines.items())]
        command = ["g++", *_flags(checked), *defines, f"-DGG_KERNEL={self._kernel_name}"]
        material = "\n".join(
            [
                _BUILD_FORMAT,
                unit,
                HEADER.read_text(),
                HARNESS.read_text(),
                " ".join(command),
                check_toolchain(),
            ]
        )
        key = hashlib.sha256(material.encode()).hexdigest()[:32]
        path = cache_dir() / "cpu" / f"{key}{'-checked' if checked else ''}"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory() as work:
                unit_path = Path(work) / "unit.cpp"
                unit_path.write_text(unit)
                output = Path(work) / "program"
                # The build runs in the sandbox too: g++ and its assembler read files named in
                # the source (an `.incbin` in asm spelled through a macro, say), and what they
                # read ends up in the program.
                try:
                    build = sandbox.wrap(
                        [*command, str(unit_path), "-o", str(output), "-lboost_context"],
                        Path(work),
                        [RUNTIME_DIR],
                    )
                except GraderError as exc:
                    raise UnsupportedKernelError(str(exc)) from None
                done = subprocess.run(
                    build,
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=_BUILD_TIMEOUT_S,
                    check=False,
                    env=sandbox.clean_env(),
                )
                if done.returncode != 0:
                    raise UnsupportedKernelError(
                        f"the CPU backend cannot build this kernel: "
                        f"{_build_error(done.stderr, self._source.display_name)}"
                    )
                os.replace(output, path)
        program = _Program(path, checked)
        self._programs[checked] = program
        return program

    def _as_nvrtc_sees_it(self) -> str:
        """The student's file preprocessed with NVRTC's macros (see cpu_preprocess), checked
        again for constructs the emulator cannot run (a macro may spell `asm`)."""
        assert self._source is not None
        with tempfile.TemporaryDirectory() as work:
            try:
                text = as_nvrtc_sees_it(self._source, self._defines, Path(work))
            except PreprocessError as exc:
                raise UnsupportedKernelError(
                    "the CPU backend cannot build this kernel: "
                    f"{_build_error(str(exc), self._source.display_name)}"
                ) from None
        hidden = unsupported_constructs(KernelSource(text, self._source.display_name))
        if hidden:
            what = hidden[0].split(": ", 1)[1]
            raise UnsupportedKernelError(f"{self._source.display_name}: {what} (through a macro)")
        return text

    def launches(self, m: int, k: int, n: int, requested: int) -> int:
        """Small shapes run once in each thread order (a race shows in at least one of them at
        any size); large ones once, in the next order of the rotation: on the CPU, repeating a
        large launch adds no information that the orders do not already give."""
        return max(requested, len(_ORDERS)) if m * k * n <= CHECKED_LIMIT else 1

    def extra_time_s(self, m: int, k: int, n: int, launches: int) -> float:
        """The spec's limit is meant for a GPU; the emulator gets time in proportion to the work,
        at a rate far below what it reaches on a slow kernel, so a right kernel never times out."""
        rate = 20e6 if m * k * n > CHECKED_LIMIT else 2e6  # multiply-adds per second, worst case
        return launches * m * k * n / rate

    def run_gemm(self, launch: GemmLaunch) -> GemmOutput:
        checked = launch.m * launch.k * launch.n <= CHECKED_LIMIT
        program = self._program(checked)
        order = self._launches % len(_ORDERS)
        self._launches += 1
        with tempfile.TemporaryDirectory(prefix="grader-cpu-") as work:
            for name, data in (("a", launch.a), ("b", launch.b), ("c", launch.c)):
                data.tofile(Path(work) / f"{name}.bin")
            grid, block = launch.geometry.grid, launch.geometry.block
            args = [
                work,
                launch.m,
                launch.k,
                launch.n,
                launch.offset,
                *grid,
                *block,
                order,
                self._launches,
                int(checked),
            ]
            env = sandbox.clean_env()  # none of the grader's environment (secrets, tokens)
            env["ASAN_OPTIONS"] = (
                "detect_leaks=0:abort_on_error=0:exitcode=71:detect_stack_use_after_return=0:"
                f"hard_rss_limit_mb={sandbox.rss_limit_mb()}:"
                f"malloc_limit_mb={sandbox.rss_limit_mb()}"
            )
            env["UBSAN_OPTIONS"] = "halt_on_error=1:exitcode=72:print_stacktrace=1"
            try:
                command = sandbox.wrap(
                    [str(program.path), *map(str, args)], Path(work), [program.path]
                )
            except GraderError as exc:
                raise UnsupportedKernelError(str(exc)) from None
            # stdout (the kernel's printf) is dropped; stderr (sanitizer reports) goes to a file
            # under the size limit, of which at most _STDERR_KEPT bytes are read back: a kernel
            # that floods either costs no memory here.
            with (Path(work) / "stderr.txt").open("w+b") as errors:
                done = subprocess.run(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    env=env,
                    check=False,
                    preexec_fn=sandbox.limits(memory=not checked),
                )
                stderr = _read_capped(errors)
            self._collect_warnings(stderr)
            if done.returncode != 0:
                raise KernelRuntimeError(
                    explain_failure(stderr, done.returncode), context_lost=False
                )
            out = [np.fromfile(Path(work) / f"{name}.out", dtype=np.float32) for name in "abc"]
        return GemmOutput(a=out[0], b=out[1], c=out[2])

    def take_warnings(self) -> list[str]:
        taken, self.warnings = self.warnings, []
        return taken

    def _collect_warnings(self, stderr: str) -> None:
        for line in stderr.splitlines():
            if line.startswith("GRADER-CPU-WARNING: "):
                text = line.removeprefix("GRADER-CPU-WARNING: ")
                if text not in self.warnings:
                    self.warnings.append(text)

    def reference(self, a: FloatArray, b: FloatArray) -> tuple[DoubleArray, DoubleArray]:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return a64 @ b64, np.abs(a64) @ np.abs(b64)

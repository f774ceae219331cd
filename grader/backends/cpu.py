"""The CPU backend: the student's unchanged CUDA file, compiled by g++ after CUDA's declarations
(cpu_runtime/cuda_kernel.hpp) and linked with a runtime that maps CUDA's built-ins onto fibers
and a harness (cpu_runtime/runtime.cpp), runs as a child program. Two builds: fast (-O2) and
checked (AddressSanitizer + UndefinedBehaviorSanitizer, used for small shapes, where it names
the kernel line of an out-of-bounds access)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from grader.backends.base import (
    GemmLaunch,
    GemmOutput,
    KernelRuntimeError,
    Preparation,
    UnsupportedKernelError,
)
from grader.backends.compiler import CompiledKernel
from grader.backends.cpu_build import Build, Program, build
from grader.backends.cpu_failures import explain_failure, killed_by, unsupported
from grader.backends.cpu_session import ProgramEndedError, Session
from grader.backends.cpu_unsupported import unsupported_constructs
from grader.backends.timed_gemm import TimedGemm
from grader.results import DeviceInfo
from grader.source import KernelSource
from grader.spec import Shape

if TYPE_CHECKING:
    from grader.backends.base import DoubleArray, FloatArray

# Shapes up to this many multiply-adds run in the checked build (about 12x slower).
CHECKED_LIMIT = 1 << 21
_ORDERS = ("ascending", "descending", "shuffled")
# CPU time a launch may use: a base plus an allowance per element of C (padded to whole tiles)
# for a loop over max(K, 2048) at a rate about 8x below what the emulator measured on this
# course's kernels (checked build 78 M, fast build 390 M iterations per second, 2-core machine).
# The loop length is not K alone: a correct kernel may walk a padded range (a fixed 1024 /
# TILE_SIZE steps with bounds checks, say), which costs a GPU nothing and the CPU a lot. It is
# CPU time, so a loaded machine does not eat into it; an endless loop runs out of it. The base
# covers a launch's fixed costs (fibers, sanitizer set-up: a whole 1x1x1 launch takes about
# 0.01 s); 1 s leaves a wide margin and reports a hang in 1 to 2 s (the program counts from its
# exact CPU time so far, and RLIMIT_CPU in whole seconds: a launch gets its allowance and less
# than a second more).
_CPU_BASE_S = 1.0
_LOOP_FLOOR = 2048
_PAD = 32
_CHECKED_RATE = 10e6
_FAST_RATE = 40e6
CHECKED_BUDGET_S = 1.0
"""CPU time a checked launch gets where its shape's allowance is at least CHECKED_BUDGET_FROM_S:
past it, the launch runs again in the fast build, under the whole allowance. A correct kernel's
checked launch takes 0.15 s at most (1000x1x999); one that walks a fixed 1024 steps whatever K
took 7.8 s there against 1.3 s in the fast build. Smaller allowances (every shape up to 64x64x64,
a hang's first case) keep theirs, so a hang is reported as soon as before."""
CHECKED_BUDGET_FROM_S = 4.0
WALL_FACTOR = 4.0
"""The wall-clock backstop per launch, as a multiple of its CPU-time limit (a process on a busy
2-core machine gets a fraction of a core; only a program that waits without computing needs it)."""


class CpuUnavailableError(Exception):
    """g++ or Boost.Context is missing; the message says what to install."""


def check_toolchain() -> str:
    """A description of the toolchain, or CpuUnavailableError saying what to install. The
    compiler is g++ on the PATH, whatever CXX says: the builds are g++'s (its flags, its layout
    of `__shared__` arrays, the fidelity tests), and this description is in the cache's key."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise CpuUnavailableError(
            "no C++ compiler (g++): install it (Debian/Ubuntu: apt-get install g++)"
        )
    missing = [tool for tool in ("readelf", "objcopy", "c++filt") if not shutil.which(tool)]
    if missing:  # they read, localize and name what each build defines (cpu_symbols, cpu_unit)
        raise CpuUnavailableError(f"{', '.join(missing)} missing: install binutils")
    if (
        not Path("/usr/include/boost/context/detail/fcontext.hpp").is_file()
        and not _boost_elsewhere()
    ):
        raise CpuUnavailableError(
            "Boost.Context is missing: install it "
            "(Debian/Ubuntu: apt-get install libboost-context-dev)"
        )
    library = subprocess.run(
        [compiler, "-print-file-name=libboost_context.so"],
        capture_output=True,
        text=True,
        check=False,
    )
    if not Path(library.stdout.strip()).is_absolute():  # g++ echoes the bare name when absent
        raise CpuUnavailableError(
            "Boost.Context's library (libboost_context) is missing, though its headers are "
            "there: install it (Debian/Ubuntu: apt-get install libboost-context-dev)"
        )
    version = subprocess.run(
        [compiler, "-dumpfullversion"], capture_output=True, text=True, check=False
    )
    return f"{Path(compiler).name} {version.stdout.strip()}"


def _boost_elsewhere() -> bool:
    paths = [p for p in os.environ.get("CPLUS_INCLUDE_PATH", "").split(":") if p]
    return any((Path(p) / "boost/context/detail/fcontext.hpp").is_file() for p in paths)


def cpu_seconds(m: int, k: int, n: int) -> float:
    """The CPU time one launch of this shape may use."""
    rate = _FAST_RATE if m * k * n > CHECKED_LIMIT else _CHECKED_RATE
    work = (m + _PAD) * (n + _PAD) * max(k, _LOOP_FLOOR)
    return _CPU_BASE_S + work / rate


def request_fields(launch: GemmLaunch, number: int) -> list[int]:
    """The program's request line (harness_main.hpp) for a grading's launch `number` (from 0),
    up to CHECKED: the shape, the guard, the geometry, the thread order (the rotation's next)
    and the seed."""
    return [
        launch.m, launch.k, launch.n, launch.offset, *launch.geometry.grid,
        *launch.geometry.block, number % len(_ORDERS), number + 1,
    ]  # fmt: skip


def _failure(ended: ProgramEndedError, limit: float) -> KernelRuntimeError:
    """What a program that stopped during a launch means, for the student."""
    stderr = ended.stderr
    if killed_by(ended.returncode) in (signal.SIGXCPU, signal.SIGKILL) and not (
        "GRADER-CPU-ERROR" in stderr or "Sanitizer" in stderr
    ):
        return KernelRuntimeError(
            f"did not finish within its CPU-time limit of {limit:.1f} s and was stopped (CPU "
            "time: the machine's load does not count): an endless loop, or a __syncthreads() "
            "that some threads never reach?",
            context_lost=False,
            symptom="timeout",
        )
    return KernelRuntimeError(explain_failure(stderr, ended.returncode), context_lost=False)


class _OverBudgetError(Exception):
    """A checked launch ran out of CHECKED_BUDGET_S."""


class CpuBackend:
    """Runs kernels on the CPU, one CUDA thread per fiber."""

    def __init__(self) -> None:
        toolchain = check_toolchain()
        self._device = DeviceInfo(
            backend="cpu",
            name="CPU emulation",
            detail=f"{toolchain}, fibers; orders ascending, descending, shuffled",
        )
        self._toolchain = toolchain
        self._build: Build | None = None
        self._sessions: dict[bool, Session] = {}
        """The running programs (fast, checked) of the current build."""
        self._launches = 0
        self._one_program = False
        """Whether every launch of the build runs in the fast program (`__device__` variables)."""
        self._over_budget: set[tuple[int, int, int]] = set()
        """Shapes whose checked launch ran out of CHECKED_BUDGET_S in this build: their later
        launches (the race check, the probes) go to the fast build at once."""
        self.warnings: list[str] = []

    @property
    def device(self) -> DeviceInfo:
        return self._device

    @property
    def arch(self) -> str:
        return "sm_90"

    @property
    def times_kernels(self) -> bool:
        return False

    def l2_bytes(self) -> int | None:
        return None

    def timed_gemm(self, shape: Shape, seed: int) -> TimedGemm:
        raise NotImplementedError("the CPU backend does not time kernels (times_kernels)")

    def trial_launch(
        self, compiled: CompiledKernel, block: tuple[int, int], tile: tuple[int, int], size: int
    ) -> str:
        raise NotImplementedError("the CPU backend does not time kernels (times_kernels)")

    def prepare(
        self, source: KernelSource, compiled: CompiledKernel, defines: dict[str, int]
    ) -> Preparation:
        problems = [*unsupported_constructs(source), *compiled.left_out(source.display_name)]
        if problems:
            raise UnsupportedKernelError(problems[0])
        self.close()  # a new build: its programs start afresh, as a new module would on a GPU
        self._over_budget = set()
        # `__device__` variables last from launch to launch, one copy for the module on a GPU:
        # such a kernel runs in one program, the fast one, every shape (the small ones in the
        # checked program and the large ones in the fast one gave the large ones a fresh copy:
        # a kernel that wrote nothing once it had seen a small shape passed; red team, round 11)
        self._one_program = compiled.global_bytes > 0
        self._build = build(
            source, defines, compiled.symbol, self._toolchain, checked_too=not self._one_program
        )
        what = "reused from the cache" if self._build.cached else "built"
        builds = (
            "fast build alone: __device__ variables"
            if self._one_program
            else "fast and sanitizer builds"
        )
        return Preparation(
            seconds=self._build.seconds,
            cached=self._build.cached,
            detail=f"CPU programs ({builds}) {what}",
        )

    def _program(self, checked: bool) -> Program:
        assert self._build is not None, "prepare() first"
        return self._build.checked if checked else self._build.fast

    def launches(self, m: int, k: int, n: int, requested: int) -> int:
        """As many as on a GPU: a kernel that counts its launches in `__device__` memory (and
        behaves differently past some count) meets the same counts on both backends. The thread
        order rotates from launch to launch, so the cases of a check run in every order, and a
        failing case is launched once more, in the next order, to tell a race."""
        return requested

    def extra_time_s(self, m: int, k: int, n: int, launches: int) -> float:
        """The spec's limit is meant for a GPU. Each launch on the CPU is limited in CPU time
        (`cpu_seconds`), which load does not eat into; the wall-clock limit is only a backstop,
        several times that, for a program that stops computing without ending."""
        return launches * WALL_FACTOR * cpu_seconds(m, k, n)

    def run_gemm(self, launch: GemmLaunch) -> GemmOutput:
        checked = not self._one_program and launch.m * launch.k * launch.n <= CHECKED_LIMIT
        fields = request_fields(launch, self._launches)
        self._launches += 1
        limit = cpu_seconds(launch.m, launch.k, launch.n)
        shape = (launch.m, launch.k, launch.n)
        if checked and limit >= CHECKED_BUDGET_FROM_S and shape not in self._over_budget:
            try:
                return self._launch(launch, fields, True, CHECKED_BUDGET_S, over_budget=True)
            except _OverBudgetError:
                self._over_budget.add(shape)
        # far more work than its shape: the shape's launches run in the fast build
        checked = checked and shape not in self._over_budget
        return self._launch(launch, fields, checked, limit)

    def _launch(
        self,
        launch: GemmLaunch,
        fields: list[int],
        checked: bool,
        limit: float,
        over_budget: bool = False,
    ) -> GemmOutput:
        """One launch in one program; with `over_budget`, _OverBudgetError where it runs out of
        its CPU time (`limit`, a budget below the shape's allowance)."""
        session = self._session(checked)
        try:
            out, stderr = session.launch(
                [str(x) for x in [*fields, int(checked)]], (launch.a, launch.b, launch.c), limit
            )
        except ProgramEndedError as ended:
            # like a GPU context after a fault: the next launch starts a fresh program
            self._close_session(checked)
            why = unsupported(ended.stderr, ended.returncode)
            if why is not None:
                raise UnsupportedKernelError(why) from None
            failure = _failure(ended, limit)
            if over_budget and failure.symptom == "timeout":
                raise _OverBudgetError from None
            self._collect_warnings(ended.stderr)
            raise failure from None
        self._collect_warnings(stderr)
        return GemmOutput(a=out[0], b=out[1], c=out[2])

    def _session(self, checked: bool) -> Session:
        if checked not in self._sessions:
            # no isolation (GraderError) is the host's failure, not the kernel's: it propagates
            self._sessions[checked] = Session(self._program(checked).path, checked)
        return self._sessions[checked]

    def _close_session(self, checked: bool) -> None:
        session = self._sessions.pop(checked, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        for checked in list(self._sessions):
            self._close_session(checked)

    def recycle(self) -> bool:
        """Always: the student's code ran only in the programs, each a sandboxed process of its
        own, now ended; what they left (processes and files of the sandbox's user, the scope's
        directory) the parent sweeps before the next job (children.finished). The launch count
        starts again, as in a fresh process: the thread orders rotate from it."""
        self.close()
        self._build = None
        self._launches = 0
        self._one_program = False
        self._over_budget = set()
        self.warnings = []
        return True

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

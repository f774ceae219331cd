"""`grader doctor`: what this machine offers the grader, one line per component."""

from __future__ import annotations

import platform
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from grader import __version__
from grader.errors import EXIT_OK, EXIT_USAGE
from grader.report.doctor import Component, print_doctor

_PROBE = """
__global__ void probe(const float *A, const float *B, float *C, int M, int K, int N) {}
"""


def _tool_version(command: str, *args: str) -> tuple[bool, str]:
    path = shutil.which(command)
    if path is None:
        return False, "not found on PATH"
    try:
        done = subprocess.run(
            [path, *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{path}: {exc}"
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return done.returncode == 0, f"{lines[-1] if lines else '?'} ({path})"


def _cupy() -> tuple[bool, str]:
    from grader.backends.gpu import cupy_version

    try:
        version = cupy_version()
    except ImportError as exc:
        return False, f"not importable ({exc}); install the project with the cuda13 or cuda12 extra"
    return True, f"CuPy {version}"


def _nvrtc() -> tuple[bool, str]:
    try:
        from grader.backends import nvrtc
        from grader.backends.compiler import DEFAULT_ARCH, CompiledKernel, compile_kernel
        from grader.source import KernelSource

        major, minor = nvrtc.version()
        result = compile_kernel(KernelSource(_PROBE, "probe.cu"), "probe", {}, DEFAULT_ARCH)
    except Exception as exc:
        return False, f"unusable: {exc}"
    if not isinstance(result, CompiledKernel):
        return False, f"NVRTC {major}.{minor} failed to compile a probe: {result.message}"
    return True, f"NVRTC {major}.{minor}, compiles for {DEFAULT_ARCH}"


def _gpu() -> tuple[bool, str]:
    try:
        from grader.backends.gpu import GpuBackend, GpuUnavailableError
    except ImportError as exc:
        return False, str(exc)
    try:
        return True, str(GpuBackend().device)
    except GpuUnavailableError as exc:
        return False, str(exc)


def _cpu_backend() -> tuple[bool, str]:
    from grader.backends.cpu import CpuUnavailableError, check_toolchain

    try:
        return True, f"{check_toolchain()} with Boost.Context: kernels can run without a GPU"
    except CpuUnavailableError as exc:
        return False, str(exc)


def run(hidden: Sequence[Path] = ()) -> int:
    """`hidden`: paths students' native code must not read (the course's solutions)."""
    components = [
        Component("grader", True, f"{__version__} on Python {platform.python_version()}", True),
        Component("CuPy", *_cupy(), needed=True),
        Component("NVRTC (compile)", *_nvrtc(), needed=True),
        Component("GPU", *_gpu(), needed=False),
        Component("CPU backend", *_cpu_backend(), needed=False),
    ]
    if components[-1].ok:
        from grader import sandbox

        isolation = sandbox.describe(hidden)
        components.append(Component("sandbox (CPU backend)", *isolation, needed=False))
    components.append(Component("nvcc", *_tool_version("nvcc", "--version"), needed=False))
    components.append(
        Component("ncu (Nsight Compute)", *_tool_version("ncu", "--version"), needed=False)
    )
    usable = {c.name: c.ok for c in components}
    # the CPU backend runs kernels only where the sandbox can isolate them
    on_cpu = usable["CPU backend"] and usable.get("sandbox (CPU backend)", False)
    where = "the GPU" if usable["GPU"] else "the CPU backend" if on_cpu else None
    print_doctor(components, where, Console())
    return EXIT_OK if all(c.ok for c in components if c.needed) else EXIT_USAGE

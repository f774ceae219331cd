"""The student's file as NVRTC sees it, for the CPU backend's g++.

g++ and NVRTC predefine different macros: code under `#ifndef __CUDACC_RTC__` or
`#ifdef __GNUC__` is invisible to NVRTC and plain C++ to g++. A kernel could hide a host-side
computation of C there, be empty on a GPU, and pass on the CPU backend. So before g++ builds the
program, the student's file alone is preprocessed by g++ with none of its own macros (`-undef`,
no system headers, no `_GNU_SOURCE`) and with the macros NVRTC defines (found by asking NVRTC,
see tests/backends/test_cpu_preprocess.py); the program is built from that output, whose line
markers keep the student's file and lines for every diagnostic. The few names whose meaning the
two compilers still differ on (feature tests such as `__has_builtin`, `__cpp_*` macros,
`__COUNTER__`) are refused by the source scan (`grader.source`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from grader import sandbox
from grader.source import KernelSource

NVRTC_ARCH_VALUE = 900
"""__CUDA_ARCH__ as NVRTC defines it for sm_90, the course's GPU (and the default without one)."""


class PreprocessError(Exception):
    """g++ could not preprocess the file; the message is g++'s stderr."""


def nvrtc_macros() -> dict[str, str]:
    """The macros NVRTC predefines that g++ -undef does not (as NVRTC 13 answers `#ifdef`), less
    those the source scan refuses (versions, feature tests)."""
    return {
        "__CUDACC__": "1",
        "__CUDACC_RTC__": "1",
        "__CUDA_ARCH__": str(NVRTC_ARCH_VALUE),
        "__CUDA_ARCH_LIST__": str(NVRTC_ARCH_VALUE),
        "__LP64__": "1",
        "__EXCEPTIONS": "1",
    }


def preprocess_command(defines: Mapping[str, int], path: Path) -> list[str]:
    macros = {**nvrtc_macros(), **{k: str(v) for k, v in defines.items()}}
    return [
        "g++",
        "-std=gnu++17",
        "-E",
        "-undef",
        "-nostdinc",
        "-U_GNU_SOURCE",
        *[f"-D{name}={value}" for name, value in sorted(macros.items())],
        "-x",
        "c++",
        str(path),
    ]


def as_nvrtc_sees_it(source: KernelSource, defines: Mapping[str, int], work: Path) -> str:
    """The preprocessed text of the student's file, with line markers naming it."""
    path = work / "student.cu"
    name = source.display_name.replace("\\", "\\\\").replace('"', '\\"')
    path.write_text(f'#line 1 "{name}"\n{source.text}')
    done = sandbox.run(preprocess_command(defines, path), work, timeout=60)
    if done.returncode != 0:
        raise PreprocessError(done.stderr)
    # g++'s first line markers name the temporary file; the text must not depend on where it was
    # made (it is part of the CPU program cache's key).
    return done.stdout.replace(f'"{path}"', f'"{name}"')

"""The NVRTC binding (CuPy's `cupy.cuda.nvrtc`): the only module that imports it. Compiles CUDA
source text to a cubin or to PTX; it needs the NVRTC library, never a GPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cubin:
    """A compiled program: the cubin, the lowered name of the kernel asked for, NVRTC's log."""

    binary: bytes
    symbol: str
    log: str


@dataclass(frozen=True)
class NvrtcErrors:
    """NVRTC refused the program: its log (errors with file and line)."""

    log: str


def _binding() -> Any:
    """CuPy's NVRTC module, imported on first use (ImportError where CuPy is not installed)."""
    from cupy.cuda import nvrtc

    return nvrtc


def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    major, minor = _binding().getVersion()
    return int(major), int(minor)


def compile_cubin(
    text: str, display_name: str, kernel: str, options: list[str]
) -> Cubin | NvrtcErrors:
    """Compile `text` (shown in messages as `display_name`) and lower the name of `kernel`."""
    nvrtc = _binding()
    program = nvrtc.createProgram(text, display_name, [], [])
    try:
        nvrtc.addNameExpression(program, kernel)
        try:
            nvrtc.compileProgram(program, options)
        except nvrtc.NVRTCError:
            return NvrtcErrors(str(nvrtc.getProgramLog(program)))
        log = str(nvrtc.getProgramLog(program))
        symbol = str(nvrtc.getLoweredName(program, kernel))
        binary = bytes(nvrtc.getCUBIN(program))
    finally:
        nvrtc.destroyProgram(program)
    return Cubin(binary, symbol, log)


def compile_ptx(text: str, display_name: str, options: list[str]) -> str | None:
    """NVRTC's PTX for `text`, None when it does not compile."""
    nvrtc = _binding()
    program = nvrtc.createProgram(text, display_name, [], [])
    try:
        try:
            nvrtc.compileProgram(program, options)
        except nvrtc.NVRTCError:
            return None
        ptx: bytes = nvrtc.getPTX(program)
        return ptx.decode("utf-8", "replace")
    finally:
        nvrtc.destroyProgram(program)

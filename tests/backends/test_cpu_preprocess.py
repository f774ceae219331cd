"""The CPU backend builds the file as NVRTC sees it: for every macro name either compiler knows,
NVRTC and the CPU backend's preprocessing agree on whether it is defined and on its value, or
the source scan refuses the name. Asked of the real NVRTC and g++."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.backends.cpu_preprocess import preprocess_command
from grader.source import KernelSource, find_refusals
from tests.conftest import nvrtc_log

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

# Macros whose value depends on where they stand, not on the compiler.
_CONTEXTUAL = {"__LINE__", "__FILE__", "__BASE_FILE__", "__INCLUDE_LEVEL__", "__DATE__", "__TIME__"}


def _names() -> list[str]:
    gxx = subprocess.run(
        ["g++", "-std=gnu++17", "-dM", "-E", "-x", "c++", "/dev/null"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = set(re.findall(r"#define (\w+)", gxx))
    found |= {"__COUNTER__", "__FILE_NAME__", "__TIMESTAMP__", "__has_builtin", "__has_attribute"}
    found |= {"__has_cpp_attribute", "__CUDACC__", "__CUDACC_RTC__", "__CUDA_ARCH__", "__EDG__"}
    found |= {"__CUDACC_VER_MAJOR__", "__CUDA_ARCH_LIST__", "__cpp_rtti", "__NVCC__"}
    found |= {"__cplusplus", "__STDC__", "__STDC_HOSTED__", "__LP64__", "__EXCEPTIONS", "linux"}
    return sorted(found - _CONTEXTUAL)


def _gxx(text: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "probe.cu"
    path.write_text(text)
    command = preprocess_command({}, path)
    return subprocess.run([*command[:-1], *extra, command[-1]], capture_output=True, text=True)


def _allowed(name: str) -> bool:
    return not find_refusals(KernelSource(f"int x = {name};\n", "k.cu"))


def test_every_name_is_defined_alike_or_refused(tmp_path: Path) -> None:
    names = [n for n in _names() if _allowed(n)]
    probe = "".join(f"#ifdef {n}\n#warning TAKEN_{i}\n#endif\n" for i, n in enumerate(names))
    nvrtc = {names[int(i)] for i in re.findall(r"TAKEN_(\d+)", nvrtc_log(probe))}
    gxx = {names[int(i)] for i in re.findall(r"TAKEN_(\d+)", _gxx(probe, tmp_path).stderr)}
    assert nvrtc == gxx, f"only NVRTC: {sorted(nvrtc - gxx)}; only g++: {sorted(gxx - nvrtc)}"
    assert {"__CUDACC_RTC__", "__CUDA_ARCH__"} <= gxx and "__GNUC__" not in gxx


def test_the_names_both_define_have_the_same_values(tmp_path: Path) -> None:
    values = dict(re.findall(r"#define (\w+) (.*)", _gxx("", tmp_path, "-dM").stdout))
    shared = [n for n in sorted(values) if _allowed(n) and n not in _CONTEXTUAL]
    probe = "".join(
        f"#if !defined({n}) || ({n}) != ({values[n]})\n#warning DIFFERS_{i}\n#endif\n"
        for i, n in enumerate(shared)
        if re.fullmatch(r"[0-9L]+", values[n])
    )
    differs = [shared[int(i)] for i in re.findall(r"DIFFERS_(\d+)", nvrtc_log(probe))]
    assert differs == []
    assert "__cplusplus" in shared and "__CUDA_ARCH__" in shared

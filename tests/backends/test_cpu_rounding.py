"""The CPU runtime's directed-rounding intrinsics (__fadd_ru, __fdiv_rz, __double2float_rd...)
give what the GPU gives: IEEE 754's rounding, which the CPU's own rounding modes compute too.

rounding_oracle.cpp runs every intrinsic on edge values (zeros of both signs, subnormals, the
largest finite, infinities, NaN) and random ones, once with the runtime and once with the CPU's
floating-point unit set to the same mode, and prints each difference.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_unit import RUNTIME_DIR

try:
    check_toolchain()
    NO_TOOLCHAIN = ""
except CpuUnavailableError as exc:
    NO_TOOLCHAIN = str(exc)

ORACLE = Path(__file__).with_name("rounding_oracle.cpp")


@pytest.mark.skipif(bool(NO_TOOLCHAIN), reason=f"CPU backend unavailable: {NO_TOOLCHAIN}")
def test_directed_rounding_intrinsics_round_as_ieee_754_does(tmp_path: Path) -> None:
    # the tenth walk: __fdiv_ru(1, inf) gave a subnormal, not 0; __fadd_rz(inf, 1) gave the
    # largest float, not inf; x - x rounding down gave +0, not -0
    program, intrinsics = tmp_path / "oracle", tmp_path / "intrinsics.o"
    flags = ["-std=gnu++17", "-O2", "-frounding-math"]
    for command in (
        ["g++", *flags, "-nostdinc", "-I", str(RUNTIME_DIR), "-DGG_INTRINSICS_UNIT", "-x", "c++",
         "-c", str(ORACLE), "-o", str(intrinsics)],
        ["g++", *flags, str(ORACLE), str(intrinsics), "-o", str(program)],
    ):  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    done = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.endswith("0 differences\n"), done.stdout

"""A CPU program built outside the grader's cache and sandbox, step by step as cpu_build does
(the runtime's unit, the kernel's, objcopy, the link), for tests that build a variant of it: with
a macro of the runtime's defined, or a unit of their own."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from grader.backends.cpu_unit import (
    RUNTIME_DIR,
    compile_command,
    link_command,
    localize_commands,
    runtime_command,
    runtime_object_name,
    unit_text,
)


def build_program(
    work: Path, text: str, symbol: str, checked: bool, defines: Sequence[str] = ()
) -> Path:
    """The program around `text` (the student's code, as NVRTC sees it), whose kernel NVRTC
    named `symbol`; `defines` (`-DNAME`) go to both units. Returns its path in `work`."""
    runtime = work / "runtime"
    if not runtime.exists():
        shutil.copytree(RUNTIME_DIR, runtime)
    tag = f"{int(checked)}-{abs(hash(tuple(defines)))}"
    unit = work / f"kernel-{tag}.cpp"
    unit.write_text(unit_text(text))
    runtime_object = runtime / runtime_object_name(checked)
    obj, local, program = (work / f"{name}-{tag}" for name in ("kernel.o", "local.o", "program"))
    for command in (
        [*runtime_command(runtime, runtime_object, checked), *defines],
        [*compile_command(unit, runtime, obj, checked), *defines],
        *localize_commands(obj, symbol, local),
        link_command(runtime, local, program, checked),
    ):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{command[0]}: {done.stderr[-3000:]}"
    return program

"""The CPU backend's emulator, side by side with the runtime of another commit: each solution's
largest correctness case (its tutorial shape), built with both runtimes, launched in turn, CPU
time of the program measured (a loaded machine slows wall time more than CPU time). Prints each
kernel's median CPU seconds per launch and the ratio; with --write, saves the table under
benchmarks/results/cpu_fibers.txt.

    python benchmarks/cpu_fibers.py [--against REV] [--rounds N] [--write]

REV defaults to 307bd3b, the last commit with Boost.Context's switch.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.backends.compiler import CompiledKernel, compile_kernel  # noqa: E402
from grader.backends.cpu_unit import (  # noqa: E402
    LINKER_SCRIPT,
    RUNTIME_DIR,
    RUNTIME_UNIT,
    build_flags,
    compile_command,
    link_command,
    localize_commands,
    runtime_command,
    runtime_object_name,
    translate,
    unit_text,
)
from grader.checks.correctness import draw_inputs, make_launch  # noqa: E402
from grader.course import load_course  # noqa: E402
from grader.source import read_source  # noqa: E402
from grader.spec import Shape  # noqa: E402

RUNTIME = "grader/backends/cpu_runtime"
CASES = [("ex1", Shape(512, 768, 1024)), ("ex4", Shape(512, 768, 1024))]
CPU_MS = 600_000
"""The launch's CPU-time allowance, in milliseconds (the harness's CPU_MS field): far above what
a launch takes, so that the benchmark measures and the limit never stops it (600, read as
seconds, stopped ex1's launch with SIGXCPU)."""


def runtime_at(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, RUNTIME], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / RUNTIME


def program(exercise_id: str, runtime: Path, work: Path, label: str) -> Path:
    exercise = load_course(ROOT).find(exercise_id)
    defines = dict(exercise.spec.kernel.defines)
    source = read_source(exercise.solution)
    compiled = compile_kernel(source, exercise.spec.kernel.name, defines)
    assert isinstance(compiled, CompiledKernel), compiled
    lines = "".join(f"#define {name} {value}\n" for name, value in defines.items())
    output = work / f"{exercise_id}-{label}"
    if not (runtime / RUNTIME_UNIT).exists():  # before the kernel had a unit of its own
        unit = work / f"{exercise_id}-{label}.cpp"
        unit.write_text(lines + one_unit(source.text, compiled.symbol))
        subprocess.run(
            ["g++", *build_flags(False), "-I", str(runtime), "-DGG_KERNEL=_GG_kernel", str(unit),
             "-o", str(output), "-lboost_context", *linker_script(runtime)],
            check=True,
        )  # fmt: skip
        return output
    copy = work / f"runtime-{label}"  # the runtime's object is built beside its files
    if not copy.exists():
        shutil.copytree(runtime, copy)
    runtime = copy
    unit = work / f"{exercise_id}-{label}.cpp"
    unit.write_text(lines + unit_text(source.text))
    obj, local = work / f"{exercise_id}-{label}.o", work / f"{exercise_id}-{label}.local.o"
    for command in (
        runtime_command(runtime, runtime / runtime_object_name(False), False),
        compile_command(unit, runtime, obj, False),
        *localize_commands(obj, compiled.symbol, local),
        link_command(runtime, local, output, False),
    ):
        subprocess.run(command, check=True)
    return output


def one_unit(text: str, symbol: str) -> str:
    """The single unit of the runtimes before the split (runtime, harness, then the kernel)."""
    return (
        '#include <sys/resource.h>\n#include "cuda_cpu.hpp"\n'
        f'extern "C" void _GG_kernel_0({_ARGUMENTS}) __asm__("{symbol}") __attribute__((weak));\n'
        "static void _GG_kernel(const float *a, const float *b, float *c, int m, int k, int n)"
        " {\n    _GG_kernel_0(a, b, c, m, k, n);\n}\n"
        '#include "harness_main.hpp"\n' + translate(text)
    )


_ARGUMENTS = "const float *, const float *, float *, int, int, int"


def linker_script(runtime: Path) -> list[str]:
    """The runtime's linker script (the shared memory's section and guards), where it has one:
    runtimes before it had none."""
    script = runtime / LINKER_SCRIPT
    return [f"-Wl,-T,{script}"] if script.exists() else []


def request(exercise_id: str, shape: Shape) -> bytes:
    exercise = load_course(ROOT).find(exercise_id)
    a, b = draw_inputs(exercise.spec, shape, 7, 0)
    launch = make_launch(a, b, shape, exercise.spec.launch)
    fields = [
        launch.m, launch.k, launch.n, launch.offset, *launch.geometry.grid,
        *launch.geometry.block, 2, 1, 0, CPU_MS, launch.a.size, launch.b.size, launch.c.size,
    ]  # fmt: skip
    head = " ".join(map(str, fields)).encode() + b"\n"
    return head + launch.a.tobytes() + launch.b.tobytes() + launch.c.tobytes()


def cpu_seconds(path: Path, data: bytes) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([str(path)], input=data, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", default="307bd3b")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    lines = [
        f"CPU emulator, runtime of {args.against} (before) vs this tree (after), fast build, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f} at start",
        f"median CPU seconds per launch over {args.rounds} rounds (before and after in turn)",
        f"{'kernel and shape':<34} {'before':>8} {'after':>8} {'after/before':>13}",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old = runtime_at(args.against, work / "before")
        for exercise_id, shape in CASES:
            data = request(exercise_id, shape)
            before = program(exercise_id, old, work, "before")
            after = program(exercise_id, RUNTIME_DIR, work, "after")
            times: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                seconds, out_before = cpu_seconds(before, data)
                times["before"].append(seconds)
                seconds, out_after = cpu_seconds(after, data)
                times["after"].append(seconds)
                assert out_before == out_after, "the two runtimes computed different results"
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            label = f"{exercise_id} solution {shape.m}x{shape.k}x{shape.n}"
            lines.append(f"{label:<34} {b:>8.3f} {a:>8.3f} {a / b:>13.2f}")
    lines.append("(both programs give the same bytes back: checked on every launch)")
    text = "\n".join(lines)
    print(text)
    if args.write:
        (ROOT / "benchmarks/results/cpu_fibers.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a large launch's time goes in the CPU backend's fast program: ex1's solution at
1024 x 1024 x 1024 (the launch `grader validate` makes most: square 1024 is launched three times
for each of five ex1 files), beside two variants of it measured in the same run:

- two accumulators (the sum over k split in two chains): what the FP add chain costs;
- no `__syncthreads()` (a wrong kernel, timed only): what the barriers' fiber switches cost.

Each program runs its launches in the sandboxed session the grader uses; best of `ROUNDS`.

    python benchmarks/cpu_launch_split.py [--write]
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 3
SHAPE = (1024, 1024, 1024)


def variants(text: str) -> dict[str, str]:
    two = text.replace("float acc = 0.0f;", "float acc = 0.0f, acc1 = 0.0f;")
    loop = (
        "for (int k = 0; k < TILE_SIZE; ++k) {\n            acc += a_tile[ty][k] * b_tile[k][tx];"
    )
    split = loop.replace("++k", "k += 2") + " acc1 += a_tile[ty][k + 1] * b_tile[k + 1][tx];"
    two = two.replace(loop, split)
    two = two.replace("C[row * N + col] = acc;", "C[row * N + col] = acc + acc1;")
    assert two.count("acc1") == 3, "ex1's solution changed: update the two-accumulator variant"
    barriers = re.sub(r"__syncthreads\(\);", "", text)
    return {"solution": text, "two accumulators": two, "no barriers": barriers}


def best_launch_s(text: str, name: str) -> float:
    sys.path.insert(0, str(ROOT))
    from grader.backends.compiler import CompiledKernel, compile_kernel
    from grader.backends.cpu import check_toolchain, cpu_seconds, request_fields
    from grader.backends.cpu_build import build
    from grader.backends.cpu_session import Session
    from grader.checks.correctness import draw_inputs, make_launch
    from grader.course import load_course
    from grader.source import KernelSource
    from grader.spec import Shape

    spec = load_course(ROOT).find("ex1").spec
    source = KernelSource(text, f"{name}.cu")
    defines = dict(spec.kernel.defines)
    compiled = compile_kernel(source, spec.kernel.name, defines)
    assert isinstance(compiled, CompiledKernel), compiled
    programs = build(source, defines, compiled.symbol, check_toolchain(), checked_too=False)
    shape = Shape(*SHAPE)
    a, b = draw_inputs(spec, shape, 1, 0)
    launch = make_launch(a, b, shape, spec.launch)
    session = Session(programs.fast.path, False)
    times = []
    try:
        for index in range(ROUNDS):
            fields = [*request_fields(launch, index), 0]
            start = time.perf_counter()
            session.launch(
                [str(x) for x in fields], (launch.a, launch.b, launch.c), cpu_seconds(*SHAPE)
            )
            times.append(time.perf_counter() - start)
    finally:
        session.close()
    return min(times)


def main() -> int:
    text = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
    found = {
        name: best_launch_s(body, name.replace(" ", "_")) for name, body in variants(text).items()
    }
    base = found["solution"]
    lines = [
        f"# ex1's solution at {SHAPE[0]}x{SHAPE[1]}x{SHAPE[2]}, fast program, best of {ROUNDS} "
        f"launches; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at the end",
    ]
    for name, seconds in found.items():
        lines.append(f"{name:<18} {seconds:6.3f} s  {seconds / base:5.2f}x the solution's")
    lines.append(
        f"barriers' share of the solution's launch: {(base - found['no barriers']) / base:.0%}"
    )
    text_out = "\n".join(lines) + "\n"
    print(text_out, end="")
    if "--write" in sys.argv:
        (ROOT / "benchmarks/results/cpu_launch_split.txt").write_text(text_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the fast program's UBSan checks (grader/backends/cpu_unit.py FAST_CHECKS: alignment, shift
exponent, float-to-int range, integer division by zero) cost: ex1's and ex4's solutions at
1024 x 1024 x 1024, in the fast program built with the checks and without them, launched in
turn (with, without, with, ...) in the sandboxed sessions the grader uses; best of `ROUNDS`.

    python benchmarks/cpu_fast_checks.py [--write]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 5
SHAPE = (1024, 1024, 1024)
EXERCISES = {
    "ex1": "solutions/ex1-non-square/kernel.cu",
    "ex4": "solutions/ex4-register-tiling/kernel.cu",
}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from grader.backends import cpu_unit
    from grader.backends.compiler import CompiledKernel, compile_kernel
    from grader.backends.cpu import check_toolchain, cpu_seconds, request_fields
    from grader.backends.cpu_build import build
    from grader.backends.cpu_session import Session
    from grader.checks.correctness import draw_inputs, make_launch
    from grader.course import load_course
    from grader.source import KernelSource
    from grader.spec import Shape

    course = load_course(ROOT)
    toolchain = check_toolchain()
    checks = cpu_unit.FAST_CHECKS
    lines = [
        f"# fast program at {SHAPE[0]}x{SHAPE[1]}x{SHAPE[2]}, with and without its UBSan checks "
        f"({', '.join(checks)}), launched in turn, best of {ROUNDS}; {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f} at the start"
    ]
    for exercise_id, path in EXERCISES.items():
        spec = course.find(exercise_id).spec
        source = KernelSource((ROOT / path).read_text(), "kernel.cu")
        defines = dict(spec.kernel.defines)
        compiled = compile_kernel(source, spec.kernel.name, defines)
        assert isinstance(compiled, CompiledKernel), compiled
        sessions: dict[str, Session] = {}
        for name, kept in (("with checks", checks), ("without", ())):
            cpu_unit.FAST_CHECKS = kept  # a cache of its own: the key holds the flags
            with tempfile.TemporaryDirectory() as cache:
                os.environ["GRADER_CACHE_DIR"] = cache
                program = build(source, defines, compiled.symbol, toolchain, checked_too=False)
                copy = Path(tempfile.mkdtemp()) / "program"
                copy.write_bytes(program.fast.path.read_bytes())
                copy.chmod(0o755)
            sessions[name] = Session(copy, False)
        cpu_unit.FAST_CHECKS = checks
        shape = Shape(*SHAPE)
        a, b = draw_inputs(spec, shape, 1, 0)
        launch = make_launch(a, b, shape, spec.launch)
        best = dict.fromkeys(sessions, float("inf"))
        try:
            for index in range(ROUNDS):
                for name, session in sessions.items():
                    fields = [*request_fields(launch, index), 0]
                    start = time.perf_counter()
                    session.launch(
                        [str(x) for x in fields], (launch.a, launch.b, launch.c),
                        cpu_seconds(*SHAPE),
                    )  # fmt: skip
                    best[name] = min(best[name], time.perf_counter() - start)
        finally:
            for session in sessions.values():
                session.close()
        ratio = best["with checks"] / best["without"]
        lines.append(
            f"{exercise_id} solution   with checks {best['with checks']:6.3f} s   without "
            f"{best['without']:6.3f} s   ratio {ratio:.3f}"
        )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if "--write" in sys.argv:
        (ROOT / "benchmarks/results/cpu_fast_checks.txt").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Issue 17's CPU-side targets, each figure beside a floor measured in the same run:

- `grader check ex4 --backend cpu --file <solution>`, warm cache (target 5 s). Floors: Python's
  start-up + importing the grader + spawning one child that does nothing; and the CPU program's
  own time on the spec's cases (every launch the check makes, through the same sandboxed program,
  with nothing of the grader around it).
- `grader validate --backend cpu`, warm cache (target 30 s; with --validate: it takes minutes).
  Floor: the programs' own time for what validate must grade in full (each exercise's
  solution), estimated from the solution's launches on the spec's cases, divided by the cores.
  Wrong answers files run no correctness case (the solution's own item judges the kernel);
  stubs and wrong kernels stop at their first failure (as `check -x`) unless the reason they
  declare needs the whole grading: all are left out of the floor.

Prints a table; with --write, saves it as JSON under benchmarks/results/cpu_targets.json.

    python benchmarks/cpu_targets.py [--validate] [--write]
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = "7"
TARGET_CHECK_S = 5.0
TARGET_VALIDATE_S = 30.0
EX4 = ["check", "ex4", "--backend", "cpu", "--file", "solutions/ex4-register-tiling/kernel.cu"]


def machine() -> dict[str, object]:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or platform.machine(),
    )
    memory_kb = next(
        int(line.split()[1])
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal")
    )
    compiler = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True)
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(memory_kb / 2**20, 1),
        "python": platform.python_version(),
        "g++": compiler.stdout.strip(),
        "load_average_at_start": round(os.getloadavg()[0], 2),
    }


def grader(args: list[str]) -> tuple[float, int]:
    """Wall time and exit code of one grader command (GRADER_CACHE_DIR as the caller set it)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "grader", *args, "--seed", SEED],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - start, done.returncode


def startup_floor() -> float:
    """Python's start-up, importing the grader's CLI and one check's command, spawning one child
    that does nothing: what any `grader check` pays before grading (best of three)."""
    code = (
        "import subprocess, sys, grader.cli, grader.commands.check;"
        "subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    )
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def program_floor(exercise_id: str) -> float:
    """The exercise's solution: the CPU program's own time for every launch the correctness check
    makes (each case, as often as the spec repeats it, in the build the grader picks), through
    the sandboxed program the grader runs, with nothing else of the grader in the timing."""
    sys.path.insert(0, str(ROOT))
    from grader.backends.compiler import CompiledKernel, compile_kernel
    from grader.backends.cpu import CHECKED_LIMIT, check_toolchain, cpu_seconds, request_fields
    from grader.backends.cpu_build import build
    from grader.backends.cpu_session import Session
    from grader.checks.correctness import draw_inputs, make_launch
    from grader.checks.kinds.correctness import correctness_cases
    from grader.course import load_course
    from grader.source import read_source

    exercise = load_course(ROOT).find(exercise_id)
    spec = exercise.spec
    source = read_source(exercise.solution)
    toolchain = check_toolchain()
    total = 0.0
    built_for: tuple[tuple[str, int], ...] | None = None
    sessions: dict[bool, Session] = {}
    launches = 0
    try:
        for planned in correctness_cases(spec):
            if planned.defines != built_for:
                for session in sessions.values():
                    session.close()
                sessions, built_for = {}, planned.defines
                defines = {**spec.kernel.defines, **dict(planned.defines)}
                compiled = compile_kernel(source, spec.kernel.name, defines)
                assert isinstance(compiled, CompiledKernel), compiled
                programs = build(source, defines, compiled.symbol, toolchain)
            shape = planned.case.dims
            a, b = draw_inputs(spec, shape, int(SEED), planned.index)
            launch = make_launch(a, b, shape, planned.launch or spec.launch)
            checked = shape.m * shape.k * shape.n <= CHECKED_LIMIT
            if checked not in sessions:
                program = programs.checked if checked else programs.fast
                sessions[checked] = Session(program.path, checked)
            for _ in range(planned.case.repeat):
                fields = [*request_fields(launch, launches), int(checked)]
                launches += 1
                start = time.perf_counter()
                sessions[checked].launch(
                    [str(x) for x in fields],
                    (launch.a, launch.b, launch.c),
                    cpu_seconds(shape.m, shape.k, shape.n),
                )
                total += time.perf_counter() - start
    finally:
        for session in sessions.values():
            session.close()
    return total


def files_per_exercise() -> dict[str, int]:
    sys.path.insert(0, str(ROOT))
    from grader.course import load_course

    # what validate must grade in full: the solution (a wrong answers file runs no
    # correctness case; a stub or a wrong kernel is graded up to its first failure, at least)
    return {e.id: 1 for e in load_course(ROOT).exercises}


def item_times() -> dict[str, float]:
    """Seconds each item of the last `validate --backend cpu` took (validate keeps them to start
    the longest first next time), by the file's path."""
    sys.path.insert(0, str(ROOT))
    from grader.validation_order import recorded

    prefix = "cpu "
    return {
        key.removeprefix(prefix): round(seconds, 2)
        for key, seconds in recorded().items()
        if key.startswith(prefix)
    }


def main() -> int:
    rows: list[dict[str, object]] = []
    info = machine()
    cores = int(info["cores"] or 1)

    grader(EX4)  # fills the cache: the figures below are warm
    runs = [grader(EX4) for _ in range(3)]
    check_s = min(seconds for seconds, _ in runs)
    start_s = startup_floor()
    ex4_program_s = program_floor("ex4")
    floor = start_s + ex4_program_s
    rows.append(
        {
            "command": "grader check ex4 --backend cpu --file <solution> (warm, best of 3)",
            "seconds": round(check_s, 2),
            "exit": max(code for _, code in runs),
            "floor_s": round(floor, 2),
            "floor": f"start-up {start_s:.2f} s + the CPU program's launches {ex4_program_s:.2f} s",
            "ratio": round(check_s / floor, 2),
            "target_s": TARGET_CHECK_S,
            "met": check_s <= TARGET_CHECK_S,
        }
    )
    if "--validate" in sys.argv:
        counts = files_per_exercise()
        per_file = {e: program_floor(e) for e in counts}
        estimate = sum(per_file[e] * counts[e] for e in counts) / cores
        grader(["validate", "--backend", "cpu"])  # warm
        validate_s, code = grader(["validate", "--backend", "cpu"])
        items = item_times()
        rows.append(
            {
                "command": "grader validate --backend cpu (warm)",
                "seconds": round(validate_s, 1),
                "exit": code,
                "floor_s": round(estimate, 1),
                "floor": "the solution's launches per exercise / cores: "
                + ", ".join(f"{e} {per_file[e]:.2f} s x {counts[e]}" for e in counts),
                "ratio": round(validate_s / estimate, 2),
                "target_s": TARGET_VALIDATE_S,
                "met": validate_s <= TARGET_VALIDATE_S,
                # what the run itself spent: every item's grading (as validate timed them, for its
                # next run's order), their sum / cores, and the longest ones
                "items": len(items),
                "items_s_per_core": round(sum(items.values()) / cores, 1),
                "longest_items_s": dict(sorted(items.items(), key=lambda kv: -kv[1])[:6]),
            }
        )
    print(f"machine: {info}")
    print(f"{'command':<70} {'seconds':>8} {'floor':>7} {'ratio':>6} {'target':>7}")
    for row in rows:
        met = "met" if row["met"] else "NOT met"
        print(
            f"{row['command']:<70} {row['seconds']:>8} {row['floor_s']:>7} {row['ratio']:>6} "
            f"{row['target_s']:>5} s {met} (exit {row['exit']})\n    floor: {row['floor']}"
        )
        if "items" in row:
            print(
                f"    its {row['items']} items took {row['items_s_per_core']} s per core; "
                f"the longest: {row['longest_items_s']}"
            )
    if "--write" in sys.argv:
        out = ROOT / "benchmarks/results/cpu_targets.json"
        info["load_average_at_end"] = round(os.getloadavg()[0], 2)
        document = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": info, "rows": rows}
        out.write_text(json.dumps(document, indent=2) + "\n")
        print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

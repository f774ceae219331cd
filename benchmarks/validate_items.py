"""Where `grader validate --backend cpu` spends its time: every item it judges (each solution,
stub and known-wrong variant), one at a time, with its wall time and the CPU time of the children
that graded it. Shows which items are cheap (start-up: a compile and a first failure) and which
cost what their kernel computes (a variant whose declared reason needs every case, on matrices up
to 1024^3, and variants that only a GPU can catch, which pass every correctness case here).

The sum of the CPU times over the cores is what validate cannot go below with these variants,
whatever its own overhead; compare with `grader validate --backend cpu` (cpu_targets.py).

    python benchmarks/validate_items.py [--write]
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 7
CHEAP_S = 1.0
"""An item under this much CPU time is counted as start-up and a first failure."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from grader.course import load_course
    from grader.validation import judge

    lines = [f"validate items, --backend cpu, seed {SEED}, warm cache, one at a time"]
    lines.append(f"load average at start: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}")
    lines.append(f"{'wall s':>7} {'cpu s':>7}  {'verdict':<12} item")
    cheap: list[float] = []
    costly: list[float] = []
    for exercise in load_course(ROOT).exercises:
        items = [("solution", exercise.solution), ("stub", exercise.stub)]
        items += [("wrong", variant) for variant in exercise.wrong_variants]
        for role, path in items:
            cpu, start = _children_cpu(), time.perf_counter()
            item = judge(exercise, role, path, SEED, "cpu")
            wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
            (cheap if cpu < CHEAP_S else costly).append(cpu)
            lines.append(f"{wall:7.2f} {cpu:7.2f}  {item.verdict:<12} {item.file}")
            print(lines[-1], flush=True)
    cores = os.cpu_count() or 1
    total = sum(cheap) + sum(costly)
    lines.append(
        f"{len(cheap)} items under {CHEAP_S:g} s of CPU: {sum(cheap):.1f} s in all "
        f"(mean {sum(cheap) / max(1, len(cheap)):.2f} s); {len(costly)} costlier: "
        f"{sum(costly):.1f} s"
    )
    lines.append(
        f"CPU time of every item: {total:.1f} s; over {cores} cores: {total / cores:.1f} s "
        f"(the costlier items alone: {sum(costly) / cores:.1f} s)"
    )
    lines.append(f"load average at end: {os.getloadavg()[0]:.2f}")
    print("\n".join(lines[-3:]))
    if "--write" in sys.argv:
        out = ROOT / "benchmarks" / "results" / "validate_items.txt"
        out.write_text("\n".join(lines) + "\n")
        print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

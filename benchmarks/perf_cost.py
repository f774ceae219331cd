"""What one `grader check ex4` costs on the GPU, cold (empty compile cache) and warm, split by
stage (compile = child start + NVRTC, correctness, timing), against the floor: the kernels' own
timed time.

    python benchmarks/perf_cost.py [--write]     (on a GPU machine)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from ex4_solution import ROOT, check_solution

TARGET_WARM_S = 3.0


def one(cache: Path) -> tuple[float, dict[str, float], dict[str, float]]:
    start = time.perf_counter()
    report, _ = check_solution(cache)
    wall = time.perf_counter() - start
    stages = {"compile": 0.0, "correctness": 0.0, "performance": 0.0}
    for check in report["checks"]:
        stages[check["kind"]] += check["figures"].get("wall_s", 0.0)
    timing = next(c for c in report["checks"] if c["kind"] == "performance")["figures"]
    return wall, stages, timing


def main() -> int:
    lines = [
        f"grader check ex4 (solution) on the GPU, {time.strftime('%Y-%m-%d')}",
        f"{'run':<6} {'total s':>8} {'compile':>8} {'correct':>8} {'timing':>8}  floor",
    ]
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold", "warm", "warm"):
            wall, stages, timing = one(Path(cache))
            # the floor: the launches actually timed (both kernels, every round of every block)
            lines.append(
                f"{label:<6} {wall:8.2f} {stages['compile']:8.2f} {stages['correctness']:8.2f} "
                f"{stages['performance']:8.2f}  student {timing.get('student_ms', 0):.3f} ms, "
                f"baseline {timing.get('baseline_ms', 0):.3f} ms per launch; timing stage "
                f"{timing.get('seconds', 0):.2f} s (inputs and reference "
                f"{timing.get('prepare_s', 0):.2f}, "
                f"pytest-benchmark {timing.get('timed_s', 0):.2f}, "
                f"cuBLAS and clocks {timing.get('after_s', 0):.2f})"
            )
            last = wall
    lines.append(
        f"target: warm <= {TARGET_WARM_S:.0f} s: {'met' if last <= TARGET_WARM_S else 'NOT met'}"
    )
    print("\n".join(lines))
    if "--write" in sys.argv:
        (ROOT / "benchmarks/results/perf_cost.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

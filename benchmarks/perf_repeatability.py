"""Repeatability of the performance check: `grader check ex4` on the reference solution N times,
each in its own process, on the GPU. Prints each run's speedup, the coefficient of variation
(target <= 0.1%) and any run that did not pass (a false failure).

    python benchmarks/perf_repeatability.py [N] [--write]     (on a GPU machine)
"""

from __future__ import annotations

import statistics
import sys
import time

from ex4_solution import check_solution
from result_files import row, write

TARGET_CV = 0.001


def main() -> int:
    runs = int(next((a for a in sys.argv[1:] if a.isdigit()), "10"))
    lines = [
        f"grader check ex4 on the solution, {runs} separate processes, {time.strftime('%Y-%m-%d')}"
    ]
    speedups: list[float] = []
    errors: list[float] = []
    failures = 0
    device = ""
    for run in range(runs):
        report, returncode = check_solution()
        device = report["device"]
        timing = next(c for c in report["checks"] if c["kind"] == "performance")
        speedup = timing["figures"].get("speedup", float("nan"))
        speedups.append(speedup)
        errors.append(timing["figures"].get("rse", float("nan")))
        failures += returncode != 0
        lines.append(
            f"run {run + 1:2d}: speedup {speedup:.4f}  {timing['status']:<7} "
            f"exit {returncode}  "
            f"student {timing['figures'].get('student_ms', 0):.4f} ms, "
            f"baseline {timing['figures'].get('baseline_ms', 0):.4f} ms, "
            f"RSE {100 * timing['figures'].get('rse', 0):.3f}%"
        )
    mean = statistics.mean(speedups)
    cv = statistics.stdev(speedups) / mean
    rse = statistics.mean(errors)
    lines.append(f"device: {device}")
    lines.append(
        f"speedup mean {mean:.4f}, median {statistics.median(speedups):.4f}, "
        f"min {min(speedups):.4f}, "
        f"max {max(speedups):.4f}; CV {100 * cv:.3f}% (target <= {100 * TARGET_CV:.1f}%: "
        f"{'met' if cv <= TARGET_CV else 'NOT met'}); false failures: {failures}"
    )
    lines.append(
        f"floor: the mean relative standard error within one run, {100 * rse:.3f}%; "
        f"CV / floor: {cv / rse:.1f}"
    )
    print("\n".join(lines))
    if "--write" in sys.argv:
        rows = [
            row(
                "coefficient of variation of the speedup, run to run",
                cv,
                "fraction",
                floor=rse,
                floor_is="mean relative standard error of the student's time within one run",
                target=TARGET_CV,
            ),
            row("false failures", failures, "runs", target=0),
            row("speedup, mean", mean, "x"),
        ]
        write("perf_repeatability", lines, rows, runs=runs, device_report=device)
    return 0


if __name__ == "__main__":
    sys.exit(main())

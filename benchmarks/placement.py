"""Where the run-to-run spread of ex4's speedup comes from: in one process, the performance
check's interleaved timing repeated R times on the same buffers, then R times each on freshly
allocated buffers (the earlier ones kept alive, so that the new ones land elsewhere in memory).
If the speedup varies between allocations as it varies between processes, and not on the same
buffers, the buffers' placement is the cause; if neither varies, it is per process (the
context, the clocks at start).

    python benchmarks/placement.py [R] [--write]    # on a GPU machine; R defaults to 6

Found with it (2026-12-04): neither. The host's clock around a synchronized launch counted the
host's wake-up too, which moved by ~20 us between runs; CUDA events (now the timer) give a CV of
0.03 % on the same buffers and on fresh ones alike (benchmarks/results/placement.txt).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from grader.backends.compiler import compile_kernel
    from grader.backends.gpu import GpuBackend
    from grader.checks.launch_check import LaunchCheck
    from grader.course import load_course
    from grader.source import read_source
    from grader.timing.rounds import TimingPlan, interleaved

    repeats = int(next((a for a in sys.argv[1:] if a.isdigit()), "6"))
    exercise = load_course(ROOT).find("ex4")
    spec, perf = exercise.spec, exercise.spec.performance
    assert perf is not None
    backend = GpuBackend()
    base = perf.baseline
    baseline = compile_kernel(read_source(ROOT / base.file), base.name, base.defines, backend.arch)
    student = compile_kernel(
        read_source(exercise.solution), spec.kernel.name, spec.kernel.defines, backend.arch
    )
    plan = TimingPlan(
        ["baseline", "student", "cublas"], perf.rounds, perf.min_pairs, perf.rse_target,
        perf.time_cap_s, ("baseline", "student"), 0x7FC00000,
    )  # fmt: skip
    kept: list[Any] = []

    def fresh() -> Any:
        gemm = backend.timed_gemm(perf.dims, len(kept) + 1)
        gemm.add_kernel("baseline", baseline, base.launch.block, base.launch.tile)
        gemm.add_kernel("student", student, spec.launch.block, spec.launch.tile)
        gemm.add_library_gemm("cublas")
        kept.append(gemm)
        return gemm

    def measure(gemm: Any) -> str:
        check = LaunchCheck(gemm, spec.correctness.tolerance.factor)
        clock = gemm.clock_reading()
        verify = dict.fromkeys(("baseline", "student"), check.queue_problem)
        timing = interleaved(gemm, plan, verify)
        after = gemm.clock_reading()
        med = timing.medians
        return (
            f"speedup {timing.speedup:.4f}  student {1e3 * med['student']:.4f} ms  "
            f"baseline {1e3 * med['baseline']:.4f} ms  cublas {1e3 * med['cublas']:.4f} ms  "
            f"blocks {timing.blocks}  clock {clock.mhz()}->{after.mhz()} MHz"
        )

    lines = [f"device: {backend.device}; {repeats} repeats each"]
    print(lines[0])
    same = fresh()
    series: dict[str, list[float]] = {"same buffers": [], "fresh buffers": []}
    for name in series:
        for r in range(repeats):
            gemm = same if name == "same buffers" else fresh()
            line = measure(gemm)
            series[name].append(float(line.split()[1]))
            lines.append(f"{name} {r + 1}: {line}")
            print(lines[-1])
    for name, values in series.items():
        cv = statistics.stdev(values) / statistics.mean(values)
        lines.append(f"{name}: min {min(values):.4f} max {max(values):.4f} CV {100 * cv:.3f}%")
        print(lines[-1])
    if "--write" in sys.argv:
        (ROOT / "benchmarks/results/placement.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

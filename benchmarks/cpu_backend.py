"""How long the CPU backend takes: `grader validate --backend cpu` over every exercise, and one
`grader check` per exercise, each with an empty compile cache (cold) and again with it filled
(warm). Prints a table; with --write, also saves it under benchmarks/results/.

    python benchmarks/cpu_backend.py [--write]
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_VALIDATE_S = 60.0


def timed(args: list[str], cache: Path) -> tuple[float, int]:
    env = {**os.environ, "GRADER_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=ROOT, env=env, capture_output=True, check=False
    )
    return time.perf_counter() - start, done.returncode


def main() -> int:
    rows: list[tuple[str, str, float, int]] = []
    commands = [
        ("validate --backend cpu (all exercises)", ["validate", "--backend", "cpu", "--seed", "1"]),
        (
            "check ex1 --backend cpu (solution)",
            [
                "check",
                "ex1",
                "--backend",
                "cpu",
                "--seed",
                "1",
                "--file",
                "solutions/ex1-non-square/kernel.cu",
            ],
        ),
        (
            "check ex4 --backend cpu (solution)",
            [
                "check",
                "ex4",
                "--backend",
                "cpu",
                "--seed",
                "1",
                "--file",
                "solutions/ex4-register-tiling/kernel.cu",
            ],
        ),
    ]
    for label, args in commands:
        with tempfile.TemporaryDirectory() as cache:
            for state in ("cold", "warm"):
                seconds, code = timed(args, Path(cache))
                rows.append((label, state, seconds, code))
    cpu = platform.processor() or platform.machine()
    lines = [
        f"CPU backend timings on {os.cpu_count()} cores ({cpu}), {time.strftime('%Y-%m-%d')}",
        f"{'command':<42} {'cache':<5} {'seconds':>8} {'exit':>4}",
    ]
    lines += [
        f"{label:<42} {state:<5} {seconds:8.1f} {code:>4}" for label, state, seconds, code in rows
    ]
    worst = max(s for label, _, s, _ in rows if label.startswith("validate"))
    verdict = "met" if worst < TARGET_VALIDATE_S else "NOT met"
    lines.append(
        f"target: validate under {TARGET_VALIDATE_S:.0f} s: {verdict} (slowest {worst:.1f} s)"
    )
    print("\n".join(lines))
    if "--write" in sys.argv:
        out = ROOT / "benchmarks/results/cpu_backend.txt"
        out.write_text("\n".join(lines) + "\n")
        print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

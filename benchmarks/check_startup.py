"""Where `grader check ex4`'s wall time goes on a GPU (issue 17: <= 2 s warm): whole checks
beside their floors, measured in the same run, each in a fresh process as a student runs it.

    python benchmarks/check_startup.py [--write]     # on a GPU machine, from the project root

Rows: a bare `import cupy` with a context (the floor of any GPU child); the grading child's own
start (grader.runner imported, the GPU backend opened); `check` with only the compile check, then
without the timing, then whole, then whole with empty compile caches (cold); then, in one
process, what each first use costs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from result_files import gpu_name, row, write

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 2.0
TARGET_COLD_S = 4.0
KERNEL = "solutions/ex4-register-tiling/kernel.cu"
CHECK = [sys.executable, "-m", "grader", "check", "ex4", "--file", KERNEL]
ROWS = [
    ("floor: import cupy, context", [sys.executable, "-c", "import cupy; cupy.zeros(1)"]),
    (
        "grading child start (grader.runner + GPU backend)",
        [sys.executable, "-c", "from grader.runner import open_backend; open_backend('gpu')"],
    ),
    ("check ex4 -k compile", [*CHECK, "-k", "compile"]),
    ("check ex4 -k 'not performance'", [*CHECK, "-k", "not performance"]),
    ("check ex4 (whole)", CHECK),
]
FIRST_USES = """
import time
t = [time.perf_counter()]
import grader.runner
t.append(time.perf_counter())
from grader.runner import open_backend
backend, _ = open_backend("gpu")
t.append(time.perf_counter())
import cupy as cp
cp.zeros(1); cp.cuda.runtime.deviceSynchronize()
t.append(time.perf_counter())
a = cp.random.RandomState(1).uniform(-1, 1, (64, 64), dtype=cp.float32)
cp.cuda.runtime.deviceSynchronize()
t.append(time.perf_counter())
(a @ a).sum().get()
t.append(time.perf_counter())
a.astype(cp.float64).sum().get()
t.append(time.perf_counter())
names = ["import grader.runner (numpy, pydantic, ...)", "import CuPy, open the GPU backend",
         "first allocation (context)", "first RNG draw", "first matmul (cuBLAS handle)",
         "first float64 cast and sum"]
for name, a, b in zip(names, t, t[1:]):
    print(f"  {name:<45} {b - a:6.3f} s")
"""


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, env=env)
    return time.perf_counter() - start, done.returncode


def _cold() -> tuple[float, int]:
    """The whole check with the grader's and CuPy's compile caches empty (a first check)."""
    with tempfile.TemporaryDirectory() as scratch:
        caches = {"GRADER_CACHE_DIR": f"{scratch}/grader", "CUPY_CACHE_DIR": f"{scratch}/cupy"}
        return _timed(CHECK, {**os.environ, **caches})


def main() -> int:
    _timed(CHECK)  # the build cache and the OS's file cache warm
    lines = [
        f"grader check ex4 start-up, {time.strftime('%Y-%m-%d')} (best of 3, warm), on {gpu_name()}"
    ]
    best: dict[str, float] = {}
    for label, command in ROWS:
        runs = [_timed(command) for _ in range(3)]
        best[label] = min(seconds for seconds, _ in runs)
        lines.append(f"{label:<50} {best[label]:6.2f} s  exit {runs[0][1]}")
    colds = [_cold() for _ in range(3)]
    cold = min(seconds for seconds, _ in colds)
    cold_label = "check ex4 (whole), compile caches empty"
    lines.append(f"{cold_label:<50} {cold:6.2f} s  exit {colds[0][1]}")
    floor = best[ROWS[0][0]]
    whole = best[ROWS[-1][0]]
    lines.append(
        f"check / floor: {whole / floor:.2f}; target check <= {TARGET_S} s warm: "
        f"{'met' if whole <= TARGET_S else 'NOT met'}; cold / floor {cold / floor:.2f}, "
        f"target <= {TARGET_COLD_S} s cold: {'met' if cold <= TARGET_COLD_S else 'NOT met'}"
    )
    first = subprocess.run(
        [sys.executable, "-c", FIRST_USES], cwd=ROOT, capture_output=True, text=True
    )
    lines.append("first uses, in one process:")
    lines += first.stdout.rstrip().splitlines()
    print("\n".join(lines))
    if "--write" in sys.argv:
        rows = [
            row(
                label,
                seconds,
                "s",
                floor=floor,
                floor_is=ROWS[0][0],
                target=TARGET_S if label == ROWS[-1][0] else None,
            )
            for label, seconds in best.items()
        ]
        rows.append(
            row(
                cold_label,
                cold,
                "s",
                floor=floor,
                floor_is=ROWS[0][0],
                target=TARGET_COLD_S,
            )
        )
        write("check_startup", lines, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

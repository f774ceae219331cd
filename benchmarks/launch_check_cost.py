"""What the check of one timed launch costs on this GPU, step by step (renewing the inputs, the
reference, the comparison), at the performance check's shape: the price of checking every timed
launch, paid outside the timed region but inside the user's wait.

    python benchmarks/launch_check_cost.py [N]     # on a GPU machine; N defaults to 2048
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def main() -> int:
    import cupy as cp
    import numpy as np

    from grader.checks.launch_check import LaunchCheck

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    rng = cp.random.RandomState(1)

    def draw(dims: tuple[int, ...]) -> object:
        return rng.uniform(-1.0, 1.0, dims, dtype=cp.float32)

    a, b = draw((n, n)), draw((n, n))
    check = LaunchCheck(a, b, draw, 2.0)
    output = (a @ b).astype(cp.float32)

    def timed(label: str, step: Callable[[], object], repeats: int = 20) -> None:
        step()
        cp.cuda.runtime.deviceSynchronize()
        start = time.perf_counter()
        for _ in range(repeats):
            step()
        cp.cuda.runtime.deviceSynchronize()
        print(f"{label:<40} {1e3 * (time.perf_counter() - start) / repeats:8.3f} ms")

    cp.cuda.runtime.deviceSynchronize()
    for label, step in (
        ("first renew in this process", check.renew),
        ("first verdict in this process", lambda: check.verdict(output)),
    ):
        start = time.perf_counter()
        step()
        cp.cuda.runtime.deviceSynchronize()
        print(f"{label:<40} {1e3 * (time.perf_counter() - start):8.3f} ms")
    a64, b64 = a.astype(cp.float64), b.astype(cp.float64)
    timed("renew (two draws, copied in place)", check.renew)
    timed("float64 A B (DGEMM)", lambda: a64 @ b64)
    timed("float32 A B (SGEMM)", lambda: a @ b)
    timed("astype float64 (A and B)", lambda: (a.astype(cp.float64), b.astype(cp.float64)))
    timed("verdict (whole)", lambda: check.verdict(output))
    print(f"n = {n}; device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print("verdict ok:", check.verdict((check.a @ check.b).astype(cp.float32)).ok, np.__version__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

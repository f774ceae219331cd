"""What the check of one timed launch costs on this GPU, step by step (renewing the inputs, the
flush, the comparison), at the performance check's shape: the price of checking every timed
launch, paid outside the timed region but inside the user's wait.

    python benchmarks/launch_check_cost.py [N]     # on a GPU machine; N defaults to 2048
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def main() -> int:
    from grader.backends.gpu import GpuBackend
    from grader.checks.launch_check import LaunchCheck
    from grader.spec import Shape

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    backend = GpuBackend()
    gemm = backend.timed_gemm(Shape(n, n, n), 1)
    gemm.add_library_gemm("sgemm")  # an output to check: cuBLAS's
    check = LaunchCheck(gemm, 2.0)

    def timed(label: str, step: Callable[[], object], repeats: int = 20) -> None:
        step()
        gemm.synchronize()
        start = time.perf_counter()
        for _ in range(repeats):
            step()
        gemm.synchronize()
        print(f"{label:<40} {1e3 * (time.perf_counter() - start) / repeats:8.3f} ms")

    gemm.synchronize()
    for label, step in (
        ("first renew in this process", gemm.renew_inputs),
        ("first verdict in this process", lambda: check.verdict("sgemm")),
    ):
        start = time.perf_counter()
        step()
        gemm.synchronize()
        print(f"{label:<40} {1e3 * (time.perf_counter() - start):8.3f} ms")
    timed("renew (two draws, copied in place)", gemm.renew_inputs)
    timed("L2 flush", gemm.flush_l2)
    timed("float32 A B (SGEMM), timed launch", lambda: gemm.queue_launch("sgemm")())
    timed("verdict (whole)", lambda: check.verdict("sgemm"))
    print(f"n = {n}; device {backend.device}")
    gemm.queue_launch("sgemm")()
    print("verdict ok:", check.verdict("sgemm").ok)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

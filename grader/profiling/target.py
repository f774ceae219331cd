"""The program Nsight Compute profiles: `python -m grader.profiling.target PLAN.json` compiles
each kernel of the plan (NVRTC, for this GPU), launches each once, in order, on fresh n x n
inputs, and exits.

It launches nothing else whose name could match ncu's kernel filter, so ncu's rows are the
plan's kernels in order. A failure is printed as one `grader-profile:` line and exit code 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def main() -> int:
    import cupy as cp
    import numpy as np

    from grader.compiler import CompileFailure, compile_kernel
    from grader.source import KernelSource

    plan: dict[str, Any] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    n = int(plan["n"])
    properties = cp.cuda.runtime.getDeviceProperties(0)
    arch = f"sm_{properties['major']}{properties['minor']}"
    rng = np.random.default_rng(int(plan["seed"]))
    a, b = (cp.asarray(rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)) for _ in range(2))
    for kernel in plan["kernels"]:
        source = KernelSource(kernel["source_text"], kernel["display_name"])
        compiled = compile_kernel(source, kernel["name"], kernel["defines"], arch)
        if isinstance(compiled, CompileFailure):
            print(f"grader-profile: {kernel['label']}: {compiled.message.splitlines()[0]}")
            return 1
        function = cp.RawModule(path=str(compiled.cubin_path)).get_function(compiled.symbol)
        c = cp.zeros((n, n), dtype=cp.float32)
        (bx, by), (tx, ty) = kernel["block"], kernel["tile"]
        grid = (-(-n // tx), -(-n // ty), 1)
        try:
            function(grid, (bx, by, 1), (a, b, c, np.int32(n), np.int32(n), np.int32(n)))
            cp.cuda.runtime.deviceSynchronize()
        except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as exc:
            print(f"grader-profile: {kernel['label']}: {str(exc).strip().splitlines()[0]}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

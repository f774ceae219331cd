"""The program Nsight Compute profiles: `python -m grader.profiling.target PLAN.json` compiles
each kernel of the plan (NVRTC, for this GPU), launches each once through the GPU backend, in
order, on fresh n x n inputs, and exits.

It launches nothing else whose name could match ncu's kernel filter, so ncu's rows are the
plan's kernels in order. A failure is printed as one `grader-profile:` line and exit code 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def main() -> int:
    import numpy as np

    from grader.backends.base import GemmLaunch, KernelRuntimeError
    from grader.backends.compiler import CompileFailure, compile_kernel
    from grader.backends.geometry import launch_geometry
    from grader.backends.gpu import GpuBackend
    from grader.source import KernelSource

    plan: dict[str, Any] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    n = int(plan["n"])
    backend = GpuBackend()
    rng = np.random.default_rng(int(plan["seed"]))
    a, b = (rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32).ravel() for _ in range(2))
    for kernel in plan["kernels"]:
        source = KernelSource(kernel["source_text"], kernel["display_name"])
        defines = kernel["defines"]
        compiled = compile_kernel(source, kernel["name"], defines, backend.arch)
        if isinstance(compiled, CompileFailure):
            print(f"grader-profile: {kernel['label']}: {compiled.message.splitlines()[0]}")
            return 1
        block, tile = tuple(kernel["block"]), tuple(kernel["tile"])
        geometry = launch_geometry((block[0], block[1]), (tile[0], tile[1]), n, n)
        c = np.zeros(n * n, dtype=np.float32)
        try:
            backend.prepare(source, compiled, defines)
            backend.run_gemm(GemmLaunch(a, b, c, 0, n, n, n, geometry))
        except KernelRuntimeError as exc:
            print(f"grader-profile: {kernel['label']}: {exc}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

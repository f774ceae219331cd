"""What a GPU does with an access just past a block's last `__shared__` array: from how many bytes
past its end does a read (or a store) fault, and what does a read before that return? The CPU
backend's fast build faults from the next page on and fills the bytes below it (SHARED_GAP_LIMIT
in grader/backends/cpu_unit.py): this settles what it should do there.

Needs a GPU (CuPy). Each (array size, access) runs in a process of its own that walks the offset
up from the array's end, one launch per offset, until a launch faults (the fault ends the CUDA
context, and the process). Prints one line per walk and, with --write, writes the table to
benchmarks/results/gpu_shared_past_end.txt (the H100 run is kept as h100-shared-past-end.txt).

    python benchmarks/gpu_shared_past_end.py [--write]
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (5, 33, 256, 1000)
"""Floats in the block's one `__shared__` array."""
LIMIT = 1024
"""Floats past the end the walk goes up to."""

_SOURCE = r"""
extern "C" __global__ void probe(float *out, int past, int store) {
    __shared__ float a[SIZE];
    for (int i = threadIdx.x; i < SIZE; i += blockDim.x) a[i] = 1000.0f + i;
    __syncthreads();
    volatile float *p = a;
    if (threadIdx.x == 0) {
        if (store) { p[SIZE + past] = -1.0f; out[0] = p[SIZE - 1]; }
        else { out[0] = p[SIZE + past]; }
    }
}
"""


def walk(size: int, store: bool) -> dict[str, object]:
    """In this process: launch at 0, 1, 2, ... floats past the end until one faults."""
    import cupy as cp

    kernel = cp.RawKernel(_SOURCE.replace("SIZE", str(size)), "probe", options=("-arch=sm_90",))
    out = cp.zeros(1, dtype=cp.float32)
    seen: list[str] = []
    static = kernel.attributes["shared_size_bytes"]
    for past in range(LIMIT):
        try:
            kernel((1,), (32,), (out, cp.int32(past), cp.int32(int(store))))
            value = float(out.get()[0])
        except Exception as exc:  # a CUDA error, whichever class CuPy raises
            return {"size_bytes": 4 * size, "static_shared": static, "store": store,
                    "first_fault_floats": past, "error": str(exc).splitlines()[0][:120],
                    "read": seen[:48]}  # fmt: skip
        seen.append(f"{value:g}")
    return {"size_bytes": 4 * size, "static_shared": static, "store": store,
            "first_fault_floats": None, "read": seen[:48]}  # fmt: skip


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        size, store = int(sys.argv[2]), sys.argv[3] == "store"
        print(json.dumps(walk(size, store)))
        return 0
    cases = [(size, store) for size in SIZES for store in ("load", "store")]

    def run(case: tuple[int, str]) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(case[0]), case[1]],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            return {"case": case, "failed": done.stderr[-400:]}
        return dict(json.loads(lines[-1]))

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(run, cases))
    import cupy as cp

    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    lines = [f"# {name}: accesses past a block's only __shared__ array (1 KB reserved below it)"]
    for result in results:
        if "failed" in result:
            lines.append(f"{result['case']}: the walk failed: {result['failed']}")
            continue
        fault = result["first_fault_floats"]
        where = "none within the walk" if fault is None else f"{4 * int(fault)} bytes past the end"
        access = "store" if result["store"] else "load"
        lines.append(
            f"array {result['size_bytes']:>5} bytes (static shared {result['static_shared']}): "
            f"first {access} that faults: {where}; {result.get('error', '')}"
        )
        if not result["store"]:
            lines.append(f"    values read past the end: {' '.join(result['read'])}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if "--write" in sys.argv:
        (ROOT / "benchmarks/results/gpu_shared_past_end.txt").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

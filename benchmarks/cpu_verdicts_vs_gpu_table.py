"""Where no GPU is at hand: the CPU side of tests/integration/test_backends_agree.py at this tree,
beside the table that test printed on a GPU at an earlier commit. Where the GPU side (the GPU
backend, the checks, the course's files) has not changed since that commit, equal CPU verdicts
mean the backends still agree.

    python benchmarks/cpu_verdicts_vs_gpu_table.py benchmarks/results/h100-gpu-agree-<rev>.txt
"""

from __future__ import annotations

import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.integration.test_backends_agree import COURSE, _grade, _kernels, _verdict

    table: dict[str, tuple[str, str]] = {}
    for line in Path(sys.argv[1]).read_text().splitlines():
        found = re.match(r"^(\S+): GPU (.*) \| CPU (.*)$", line.strip())
        if found:
            table[found.group(1)] = (found.group(2), found.group(3))
    work = [(e, k) for e in COURSE.exercises for k in _kernels(e)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda item: _grade(item[0], item[1], "cpu"), work))
    same = 0
    for (_, kernel), report in zip(work, reports, strict=True):
        name = str(kernel.relative_to(ROOT))
        gpu, cpu_then = table.get(name, ("?", "?"))
        now = _verdict(report)
        same += now == cpu_then
        flag = "same" if now == cpu_then else "CHANGED"
        print(f"{flag:8} {name}: GPU {gpu} | CPU then {cpu_then} | CPU now {now}")
    print(f"{same} of {len(work)} CPU verdicts as in {sys.argv[1]}")
    return 0 if same == len(work) else 1


if __name__ == "__main__":
    sys.exit(main())

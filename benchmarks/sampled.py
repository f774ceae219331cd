"""A sampling profile of one Python process and all its threads (a stand-in for py-spy where it
is not installed): every few milliseconds each thread's stack is read, and the innermost frame in
grader/ (with the leaf function it is in) is counted. Prints the most frequent at exit.

    python benchmarks/sampled.py OUTPUT -m grader batch ...
"""

from __future__ import annotations

import atexit
import collections
import runpy
import sys
import threading
import time
from pathlib import Path

INTERVAL_S = 0.005


def _where(frame: object) -> tuple[str, str]:
    leaf = frame
    inner = ""
    while frame is not None:
        code = frame.f_code  # type: ignore[attr-defined]
        if "/grader/" in code.co_filename and not inner:
            inner = f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}"  # type: ignore[attr-defined]
        frame = frame.f_back  # type: ignore[attr-defined]
    code = leaf.f_code  # type: ignore[attr-defined]
    return inner, f"{Path(code.co_filename).name}:{code.co_name}"


def main() -> None:
    output = Path(sys.argv[1])
    module = sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    samples = [0]
    me = threading.get_ident()
    started = time.monotonic()

    def sample() -> None:
        while True:
            time.sleep(INTERVAL_S)
            samples[0] += 1
            for ident, frame in sys._current_frames().items():
                if ident != me and ident != sampler.ident:
                    counts[_where(frame)] += 1

    def report() -> None:
        wall = time.monotonic() - started
        lines = [
            f"{samples[0]} samples over {wall:.1f} s, every thread; innermost grader frame | leaf"
        ]
        for (inner, leaf), n in counts.most_common(60):
            lines.append(f"{n * INTERVAL_S:8.2f} s  {inner or '-'} | {leaf}")
        output.write_text("\n".join(lines) + "\n")

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    atexit.register(report)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()

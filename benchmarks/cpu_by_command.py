"""Where the CPU time of a command goes, summed by program name over every process it starts
(BSD process accounting: needs root and Debian's `acct` package, for `accton` and `dump-acct`).
Tells apart what a figure is made of: the grader's own Python processes (each grading child and
each CLI run pays Python's start-up and the grader's imports), the CPU backend's kernel programs
(`program`: the emulated launches), g++ (`cc1plus`, `as`, `ld`) and the rest.

    sudo python benchmarks/cpu_by_command.py [--write NAME] -- COMMAND [ARGS...]

e.g. `-- .venv/bin/grader validate --backend cpu` or `-- .venv/bin/python -m pytest -n auto -q`;
with --write, the table goes to benchmarks/results/cpu_by_command-NAME.txt as well.
"""

from __future__ import annotations

import argparse
import collections
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
SHOWN = 12


def by_command(accounting: Path) -> dict[str, tuple[float, int]]:
    """CPU seconds (user + system) and process count per program name."""
    dump = subprocess.run(
        ["dump-acct", str(accounting)], capture_output=True, text=True, check=True
    )
    seconds: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for line in dump.stdout.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) < 4:
            continue
        name = fields[0] + ("*" if "F" in fields[11] else "")  # F: forked, never exec'd
        seconds[name] += (float(fields[2]) + float(fields[3])) / TICKS
        count[name] += 1
    return {name: (seconds[name], count[name]) for name in seconds}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", metavar="NAME")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("accton") or not shutil.which("dump-acct"):
        print(
            "cpu_by_command: needs root and the acct package (accton, dump-acct)", file=sys.stderr
        )
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        accounting = Path(tmp) / "pacct"
        accounting.touch()
        subprocess.run(["accton", str(accounting)], check=True, capture_output=True)
        start = time.perf_counter()
        try:
            done = subprocess.run(args.command, stdout=subprocess.DEVNULL, check=False)
        finally:
            subprocess.run(["accton", "off"], check=True, capture_output=True)
        wall = time.perf_counter() - start
        table = by_command(accounting)
    total = sum(s for s, _ in table.values())
    lines = [
        f"{shlex.join(args.command)}: exit {done.returncode}, {wall:.1f} s wall, "
        f"{total:.1f} CPU-s over {os.cpu_count()} cores ({time.strftime('%Y-%m-%d %H:%M')}, "
        f"load average at end {os.getloadavg()[0]:.2f})",
        f"{'CPU s':>8} {'share':>6} {'processes':>9}  program (* forked, not exec'd)",
    ]
    ranked = sorted(table.items(), key=lambda item: -item[1][0])
    for name, (seconds, count) in ranked[:SHOWN]:
        lines.append(f"{seconds:8.1f} {seconds / total:6.1%} {count:9d}  {name}")
    rest = sum(s for _, (s, _) in ranked[SHOWN:])
    lines.append(f"{rest:8.1f} {rest / total:6.1%} {'':9}  the rest")
    text = "\n".join(lines)
    print(text)
    if args.write:
        (ROOT / "benchmarks" / "results" / f"cpu_by_command-{args.write}.txt").write_text(
            text + "\n"
        )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A stand-in for ncu in tests: prints the H200 run recorded in ncu-h200-n1024.csv, one block of
rows per kernel of the plan (the naive and tiled rows alternate). FAKE_NCU_MODE changes that:
`perm` prints ncu's counter-permission error, `sleep` hangs, `target` fails like a bad kernel."""

import json
import os
import sys
import time
from pathlib import Path

mode = os.environ.get("FAKE_NCU_MODE", "")
if mode == "perm":
    print("==PROF== Connected to process 1 (/usr/bin/python3)")
    print(
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
        "Performance Counters on the target device 0."
    )
    sys.exit(1)
if mode == "sleep":
    time.sleep(60)
if mode == "target":
    print('grader-profile: yours: kernel.cu:3: error: expected a ";"')
    print("==ERROR== The application returned an error code (1).")
    sys.exit(1)
plan = json.loads(Path(sys.argv[-1]).read_text())
lines = (Path(__file__).parent / "ncu-h200-n1024.csv").read_text().splitlines()
header = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
print("\n".join(lines[: header + 1]))
rows = {"0": [], "1": []}
for line in lines[header + 1 :]:
    rows[line.split(",")[0].strip('"')].append(line)
for launch in range(len(plan["kernels"])):
    for line in rows[str(launch % 2)]:
        print(f'"{launch}"' + line[line.index(",") :])

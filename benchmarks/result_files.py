"""Shared by the GPU benchmarks: the GPU's name, and a result written twice under
benchmarks/results/, as the printed table (NAME.txt) and as JSON (NAME.json) whose rows give each
figure beside its floor measured in the same run, the ratio, the target and whether it is met."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def gpu_name() -> str:
    """The GPU's name, as the driver gives it."""
    query = ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "--id=0"]
    try:
        done = subprocess.run(query, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return "no GPU (nvidia-smi not found)"
    return done.stdout.strip() or "an unknown GPU"


def row(
    figure: str,
    value: float,
    unit: str,
    *,
    floor: float | None = None,
    floor_is: str = "",
    target: float | None = None,
    at_least: bool = False,
) -> dict[str, Any]:
    """One figure; `at_least`: the target is a minimum (throughput), else a maximum (time)."""
    met = None if target is None else (value >= target if at_least else value <= target)
    return {
        "figure": figure,
        "value": round(value, 6),
        "unit": unit,
        "floor": None if floor is None else round(floor, 6),
        "floor_is": floor_is,
        "ratio": None if not floor else round(value / floor, 3),
        "target": target,
        "target_is": None if target is None else ("minimum" if at_least else "maximum"),
        "met": met,
    }


def write(name: str, lines: list[str], rows: list[dict[str, Any]], **extra: Any) -> None:
    """NAME.txt (the lines) and NAME.json (the rows, the device, the date and `extra`)."""
    (RESULTS / f"{name}.txt").write_text("\n".join(lines) + "\n")
    document = {
        "benchmark": name,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "device": gpu_name(),
        "rows": rows,
        **extra,
    }
    (RESULTS / f"{name}.json").write_text(json.dumps(document, indent=2) + "\n")

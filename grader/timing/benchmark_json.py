"""The timed blocks as pytest-benchmark's JSON (what `pytest --benchmark-json` writes, one entry
per block, named as the grader's former pytest run named them: `test_gemm[BLOCK-LABEL]`), with
the grader's own facts about the machine; `grader check --benchmark-json PATH` copies it out,
and pytest-benchmark's tools read it."""

from __future__ import annotations

import json
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader.timing.rounds import Timing
from grader.timing.samples import Block

_TEST = "test_gemm"


def _options(timer: str) -> dict[str, Any]:
    """pytest-benchmark's options as its JSON records them (its defaults for those the grader's
    loop does not have: it sets its rounds itself)."""
    return {
        "disable_gc": True,
        "timer": timer,
        "min_rounds": 5,
        "max_time": 1.0,
        "min_time": 5e-06,
        "precision": None,
        "confidence": None,
        "warmup": False,
    }


def _entry(block: Block, timer: Callable[[str], str]) -> dict[str, Any]:
    param = f"{block.index}-{block.label}"
    stats = {**block.stats.as_dict(), "data": list(block.stats.data), "iterations": 1}
    return {
        "group": block.label,
        "name": f"{_TEST}[{param}]",
        "fullname": f"::{_TEST}[{param}]",
        "params": {"slot": [block.index, block.label]},
        "param": param,
        "extra_info": {"block": block.index},
        "options": _options(timer(block.label)),
        "stats": stats,
    }


def write_benchmark_json(
    timing: Timing, target: Path, machine: dict[str, str], timer: Callable[[str], str]
) -> None:
    """Every block of `timing`, in the order run, with `machine` (GPU, clocks, versions) under
    `grader_machine`; `timer` names each kernel's clock. pytest-benchmark's own machine and
    commit facts are left out but for the node and Python: py-cpuinfo and git calls cost
    seconds of every check."""
    document = {
        "grader_machine": machine,
        "benchmarks": [_entry(block, timer) for block in timing.samples],
        "machine_info": {"node": platform.node(), "python_version": platform.python_version()},
        "commit_info": {},
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document, indent=1))

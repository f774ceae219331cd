"""Shared by the GPU benchmarks: `grader check ex4` on the reference solution, as JSON, in a
fresh process (as a student runs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def check_solution(cache: Path | None = None) -> tuple[dict[str, Any], int]:
    """The report and the exit code; `cache` sets GRADER_CACHE_DIR (None: the user's cache)."""
    env = {**os.environ, **({"GRADER_CACHE_DIR": str(cache)} if cache else {})}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "check",
            "ex4",
            "--backend",
            "gpu",
            "--json",
            "--file",
            "solutions/ex4-register-tiling/kernel.cu",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(done.stdout), done.returncode

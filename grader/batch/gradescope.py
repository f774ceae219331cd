"""Gradescope: results.json in the form its autograder specification asks for (a test per check
with score, max_score, status, output and visibility; a leaderboard where GFLOP/s were measured),
and the autograder package (setup.sh, run_autograder, the course without its solutions)."""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.results import Report

SEPARATELY = (
    "graded separately: timing needs a GPU, which Gradescope's machines lack; your instructor "
    "runs it on a GPU and imports the scores"
)
COURSE_PARTS = ("grader", "exercises", "reference", "course.yaml", "pyproject.toml", "README.md")


def results_json(reports: Sequence[Report]) -> dict[str, Any]:
    tests: list[dict[str, Any]] = []
    leaderboard: list[dict[str, Any]] = []
    for report in reports:
        for check in report.checks:
            gpu_only = check.status == "skipped" and check.message.startswith("needs a GPU")
            test = {
                "name": f"{report.exercise}: {check.name}",
                "score": check.score,
                "max_score": 0.0 if gpu_only else check.max_score,
                "status": "passed" if check.status == "passed" else "failed",
                "output": SEPARATELY if gpu_only else check.message,
                "visibility": "visible",
            }
            tests.append(test)
            if "student_gflops" in check.figures:
                leaderboard.append(
                    {
                        "name": f"{report.exercise} GFLOP/s",
                        "value": check.figures["student_gflops"],
                        "order": "desc",
                    }
                )
    result: dict[str, Any] = {
        "score": round(sum(t["score"] for t in tests), 2),
        "output": "Graded on " + ", ".join(sorted({str(r.device) for r in reports})),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    if leaderboard:
        result["leaderboard"] = leaderboard
    return result


SETUP = """#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image.
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip g++ libboost-context-dev \
  bubblewrap libseccomp2
# Students' programs run as unprivileged users of their own (uids from 1,900,000,000), in
# bubblewrap where the container lets it start, else as that user directly: name the first one.
getent passwd grader-sandbox >/dev/null || useradd --system --no-create-home \
  --uid 1900000000 --shell /usr/sbin/nologin grader-sandbox || true
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q -e '/autograder/source[cuda13]'
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission.
cd /autograder/source
exec /autograder/venv/bin/python -m grader gradescope {exercises}
"""


def write_package(course_root: Path, target: Path, exercise_ids: Sequence[str]) -> None:
    """The autograder zip: setup.sh, run_autograder, and the course without solutions/."""
    args = " ".join(f"--exercise {e}" for e in exercise_ids)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, text in (("setup.sh", SETUP), ("run_autograder", RUN.format(exercises=args))):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            zipped.writestr(info, text)
        for part in COURSE_PARTS:
            path = course_root / part
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for file in files:
                relative = file.relative_to(course_root)
                if "__pycache__" in relative.parts:
                    continue
                zipped.write(file, str(relative))

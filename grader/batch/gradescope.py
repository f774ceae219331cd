"""Gradescope's autograder package (setup.sh, run_autograder, the course without its solutions)
and the student release of the course, written to disk. Gradescope's results.json is rendered by
grader/report/gradescope.py."""

from __future__ import annotations

import shutil
import stat
import zipfile
from collections.abc import Sequence
from pathlib import Path

COURSE_PARTS = ("grader", "exercises", "reference", "course.yaml", "pyproject.toml", "README.md")
"""What the autograder package and the student release hold of the course (never solutions/)."""


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


def write_release(course_root: Path, target: Path) -> None:
    """A student copy of the course in `target` (new or empty): everything but solutions/."""
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in (*COURSE_PARTS, "bin", "docs"):
        source = course_root / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=ignore)
        elif source.is_file():
            shutil.copy2(source, target / part)

"""Gradescope's autograder package (setup.sh, run_autograder, the running grader's own source and
the course without its solutions) and the student release of the course, written to disk.
Gradescope's results.json is rendered by grader/report/gradescope.py."""

from __future__ import annotations

import shutil
import stat
import zipfile
from collections.abc import Sequence
from pathlib import Path

import yaml

from grader.errors import GraderError

GRADER_PARTS = ("grader", "pyproject.toml", "README.md")
"""What the autograder package holds of the running grader's source: what setup.sh's
`pip install -e` installs (pyproject.toml names README.md as its readme)."""
COURSE_PARTS = ("course.yaml", "exercises", "reference")
"""What the autograder package holds of the course (never solutions/)."""


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
# an editable install leaves the grader's own modules uncompiled: compile them into the image, or
# every submission's container compiles them again (60 ms of each grading's start here)
/autograder/venv/bin/python -m compileall -q /autograder/source/grader
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission.
cd /autograder/source
exec /autograder/venv/bin/python -m grader gradescope {exercises}
"""


PACKAGE = Path(__file__).resolve().parent.parent
"""The running grader's package folder (grader/, where its __init__.py is)."""


def grader_source(package: Path = PACKAGE) -> Path:
    """The folder the running grader (`package`, grader/) is imported from, whose pyproject.toml
    the autograder package installs from; a GraderError where there is none (a wheel's install)."""
    root = package.parent
    if not (root / "pyproject.toml").is_file() or not (package / "__init__.py").is_file():
        raise GraderError(
            f"the running grader ({package}) has no pyproject.toml beside it (installed from a "
            "wheel?), and the autograder package must hold the grader's source to install it: "
            "run gradescope-package with the grader of a checkout (CHECKOUT/bin/dev grader ..., "
            "or pip install -e CHECKOUT); nothing written"
        )
    return root


def _files(root: Path, parts: Sequence[str]) -> list[Path]:
    """The files of `parts` under `root`, relative to it (no byte-code)."""
    found = []
    for part in parts:
        path = root / part
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            relative = file.relative_to(root)
            if "__pycache__" not in relative.parts and file.suffix != ".pyc":
                found.append(relative)
    return found


def write_package(
    course_root: Path, target: Path, exercise_ids: Sequence[str], source: Path
) -> None:
    """The autograder zip: setup.sh, run_autograder, the grader's own source (from `source`, see
    grader_source) and the course (from `course_root`) without solutions/. Never over a file."""
    args = " ".join(f"--exercise {e}" for e in exercise_ids)
    try:
        zipped = zipfile.ZipFile(target, "x", zipfile.ZIP_DEFLATED)
    except FileExistsError:
        raise GraderError(
            f"{target} exists: choose another path (nothing is overwritten)"
        ) from None
    try:
        with zipped:
            for name, text in (("setup.sh", SETUP), ("run_autograder", RUN.format(exercises=args))):
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                zipped.writestr(info, text)
            for root, parts in ((source, GRADER_PARTS), (course_root, COURSE_PARTS)):
                for relative in _files(root, parts):
                    if str(relative) == "course.yaml":
                        zipped.writestr("course.yaml", without_extensions(root / relative))
                    else:
                        zipped.write(root / relative, str(relative))
    except BaseException:
        target.unlink(missing_ok=True)  # no half-written package left behind
        raise


def write_release(course_root: Path, target: Path, source: Path) -> None:
    """A student copy of the course in `target` (new or empty): the grader's own source and
    set-up (from `source`, see grader_source) and the course (from `course_root`) without
    solutions/."""
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for root, parts in ((source, (*GRADER_PARTS, "bin", "docs")), (course_root, COURSE_PARTS)):
        for part in parts:
            path = root / part
            if path.is_dir():
                shutil.copytree(path, target / part, ignore=ignore)
            elif part == "course.yaml":
                (target / part).write_text(without_extensions(path))
            elif path.is_file():
                shutil.copy2(path, target / part)


def without_extensions(course_yaml: Path) -> str:
    """course.yaml as students and the autograder get it: without `deadlines.extensions`, which
    says who was given more time and why it is nobody else's business (the file rewritten, its
    comments lost, only where it has them)."""
    text = course_yaml.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    deadlines = data.get("deadlines") if isinstance(data, dict) else None
    if not isinstance(deadlines, dict) or "extensions" not in deadlines:
        return text
    del deadlines["extensions"]
    header = "# The course: the instructor's course.yaml, less what was granted per student.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)

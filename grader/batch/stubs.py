"""Whether a course's stubs are still the stubs, said before they are used as such (the
autograder package ships them; similarity subtracts them as the starter code): a stub that is
byte for byte its solution (overwritten by mistake), and stubs that differ from the ones
committed, where the course is a git work tree. `grader release` refuses the first
(solutions_as_stubs); everything else here is a warning."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from grader.course import Exercise

SHOWN = 5
"""Changed paths named in the git warning; the rest are counted."""


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def solutions_as_stubs(root: Path, exercises: Sequence[Exercise]) -> list[str]:
    """The stubs of `exercises` that are byte for byte their solutions, relative to `root`."""
    return [_relative(e.stub, root) for e in exercises if _same(e.stub, e.solution)]


def _same(first: Path, second: Path) -> bool:
    try:
        return first.is_file() and second.is_file() and first.read_bytes() == second.read_bytes()
    except OSError:
        return False


def _git(root: Path, *args: str) -> str | None:
    """git's output in `root`, or None where git is missing, fails, or `root` is no work tree."""
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError, UnicodeError):
        return None
    return done.stdout if done.returncode == 0 else None


def uncommitted(root: Path, pathspecs: Sequence[str]) -> list[str]:
    """`git status --porcelain` of `pathspecs` in the course `root`, where it is a git work tree
    that has them committed; [] where it is none, nothing changed, or git is missing."""
    committed = _git(root, "ls-files", "--", *pathspecs)
    if not committed or not committed.strip():
        return []
    status = _git(root, "status", "--porcelain", "--", *pathspecs)
    return [line for line in (status or "").splitlines() if line.strip()]


def stub_warnings(
    root: Path, exercises: Sequence[Exercise], pathspecs: Sequence[str], same: str, changed: str
) -> list[str]:
    """One line per stub of `exercises` that is byte for byte its solution (saying `same`: what
    follows), and one where the course's `pathspecs` differ from what git has committed (saying
    `changed`)."""
    lines = [
        f"warning: {_relative(e.stub, root)} is the same as the solution: "
        f"{_relative(e.solution, root)}, byte for byte (overwritten?); {same}"
        for e in exercises
        if _same(e.stub, e.solution)
    ]
    status = uncommitted(root, pathspecs)
    if status:
        named = ", ".join(line.strip() for line in status[:SHOWN]) + (
            f" and {len(status) - SHOWN} more" if len(status) > SHOWN else ""
        )
        lines.append(
            f"warning: the stubs differ from the ones committed (git status -- "
            f"{' '.join(pathspecs)} in {root}: {named}); {changed}"
        )
    return lines

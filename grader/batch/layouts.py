"""What a student's folder looks like beyond the plain layouts: the one folder a zipped folder
wraps everything in, and when the files were last changed (the hand-in time)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from grader.batch.names import display
from grader.course import Exercise

_IGNORED = frozenset({"__MACOSX"})
"""What archivers add beside the work (macOS's resource forks)."""


def unwrapped(folder: Path, exercises: Sequence[Exercise]) -> Path:
    """The folder the work is in: `folder`, or the one folder inside it (and so on, a few levels)
    where nothing else is there, as zipping a folder gives (`alice.zip` holding `alice/...`).
    Links are never followed."""
    # what a submission holds by name, a folder so named included, is never a wrapper
    names = {n for e in exercises for n in (e.dir_name, e.id, e.spec.kernel.file)}
    for _ in range(3):
        try:
            entries = [e for e in os.scandir(folder) if not e.name.startswith(".")]
        except OSError:
            return folder
        inside = [e for e in entries if e.name not in _IGNORED]
        only = inside[0].name if len(inside) == 1 else ""
        if not only or only in names or only.endswith((".cu", ".ipynb", ".yaml", ".yml")):
            return folder
        if not inside[0].is_dir(follow_symlinks=False):
            return folder
        folder = Path(inside[0].path)
    return folder


def last_change(paths: Iterable[Path]) -> float | None:
    """The latest modification time of `paths` (links not followed); None when none is read."""
    times = []
    for path in paths:
        with contextlib.suppress(OSError):
            times.append(os.lstat(path).st_mtime)
    return max(times) if times else None


def unread(
    folder: Path, used: Collection[Path], placed: Collection[str] = (), why: str = ""
) -> str:
    """Kernels and notebooks in a student's folder that no exercise took, named so that the
    batch's summary lists them (several .cu files, or one outside its exercise's folder);
    `placed`: where exercises not graded this time have their kernels (`ex2-tile-sweep/kernel.cu`),
    not unread; `why`: the reason, where the caller knows it better."""
    left: list[str] = []
    for top, folders, files in os.walk(folder):  # links to folders are not followed
        folders[:] = sorted(f for f in folders if not f.startswith((".", "__MACOSX")))
        for name in sorted(files):
            path = Path(top) / name
            mine = path.suffix in (".cu", ".ipynb") and not name.startswith(".")
            if mine and path not in used and f"{path.parent.name}/{name}" not in placed:
                left.append(display(str(path.relative_to(folder))))
        if len(left) > 20:
            break
    if not left:
        return ""
    taken = sorted(display(str(p.relative_to(folder))) for p in used if p.is_relative_to(folder))
    if taken:
        why = f"the kernel graded is {', '.join(taken)}"
    elif not why:
        why = (
            "not where a kernel is looked for: named as the exercise's stub is (kernel.cu), in "
            "the exercise's folder at the top of the hand-in (or of the one folder holding it "
            "all), or the only .cu file there where one exercise is graded; which one is meant "
            "is not guessed"
        )
    if taken:
        why += (
            ": each exercise's kernel is named as its stub is, in the exercise's folder, or is "
            "the folder's only .cu file where one exercise is graded"
        )
    return f"; not read: {', '.join(left[:20])} ({why})"

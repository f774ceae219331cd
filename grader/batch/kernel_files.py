"""Where a student's kernel for one exercise is in their folder: the exercise's folder, a file
named as the stub (or the only `.cu` file) where one exercise is graded, or the one notebook's
cell marked for it. Nothing is followed through a link, nothing but a regular file is taken."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grader.batch.names import display
from grader.bounded_read import not_regular
from grader.course import Exercise
from grader.notebook import marked_exercises


def lstat_mode(path: Path) -> int | None:
    """lstat's mode of `path` (a link is not followed), None when there is nothing there."""
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def find_kernel(folder: Path, exercise: Exercise, single: bool) -> tuple[Path | None, str | None]:
    """The kernel of `exercise` in a student's folder and why it cannot be used (None if it
    can); (None, None) when there is none."""
    file = exercise.spec.kernel.file
    for name in dict.fromkeys((exercise.dir_name, exercise.id)):
        mode = lstat_mode(folder / name)
        if mode is not None and stat.S_ISLNK(mode):
            why = "a symbolic link to a folder; hand in the folder itself, not a link"
            return folder / name / file, f"{name}: {why}"
        if mode is None or not stat.S_ISDIR(mode):
            continue
        found = _usable(folder / name / file, f"{name}/{file}")
        if found[0] is None:
            found = _only_kernel(folder / name, name)
        if found[0] is not None:
            return found
    if single:
        found = _usable(folder / file, file)
        if found[0] is None:
            found = _only_kernel(folder, "")
        if found[0] is not None:
            return found
    notebooks = sorted(folder.glob("*.ipynb"))
    if len(notebooks) == 1:  # the kernel is the cell marked for the exercise
        marked = marked_exercises(notebooks[0]) if lstat_mode(notebooks[0]) is not None else None
        if marked and exercise.id not in marked:
            return None, None  # cells for other exercises only: this one was not handed in
        return _usable(notebooks[0], notebooks[0].name)
    return None, None


def _only_kernel(folder: Path, shown_in: str) -> tuple[Path | None, str | None]:
    """The one `.cu` file in `folder`, whatever its name; nothing where there are several (which
    one is the kernel is not for the grader to guess: the summary says it found none)."""
    try:
        # hidden files and macOS's ._ copies are not a student's kernel
        kernels = sorted(
            e.name for e in os.scandir(folder) if e.name.endswith(".cu") and e.name[0] != "."
        )
    except OSError:
        return None, None
    if len(kernels) != 1:
        return None, None
    return _usable(folder / kernels[0], f"{shown_in}/{kernels[0]}" if shown_in else kernels[0])


def _usable(path: Path, shown_as: str) -> tuple[Path | None, str | None]:
    mode = lstat_mode(path)
    if mode is None:
        return None, None
    why = not_regular(mode)
    return path, f"{display(shown_as)}: {why}" if why else None

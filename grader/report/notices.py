"""The one-line notices of the small commands: the build cache (`grader cache`), the packages
written (`grader gradescope-package`, `grader release`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.program_cache import LIMIT_ENV, CacheStats


def _megabytes(count: int) -> str:
    return f"{count / (1024 * 1024):,.1f} MB"


def print_cache(stats: CacheStats, console: Console) -> None:
    """Where the build cache is, what it holds, its cap, and how to clear it."""
    console.print(f"build cache: {stats.directory}")
    console.print(
        f"  {stats.entries} file(s), {stats.cpu_programs} of them CPU programs; "
        f"{_megabytes(stats.total_bytes)} of {_megabytes(stats.limit_bytes)} "
        f"({LIMIT_ENV} sets the cap; least recently used builds go first)"
    )
    console.print("  clear it with: grader cache clear")


def cache_cleared(removed: int, directory: Path) -> str:
    return f"removed {removed} file(s) from {directory}"


def package_written(
    target: Path, exercise_ids: Sequence[str], grader_source: Path, course_root: Path
) -> str:
    return (
        f"autograder package: {target} (exercises {', '.join(exercise_ids)}; the grader from "
        f"{grader_source}, the course from {course_root})"
    )


def release_written(target: Path) -> str:
    return f"student copy of the course: {target} (without solutions/)"


def export_lines(target: Path, found: Sequence[tuple[str, Sequence[str], bool, str]]) -> list[str]:
    """`grader export`'s report: per exercise (id, files in the zip, whether a batch finds its
    kernel, what is wrong or missing), then what to do with the zip."""
    lines = []
    for exercise, files, ok, problem in found:
        mark = "ok" if ok and not problem else "NOT GRADABLE" if not ok else "warning"
        held = ", ".join(files) if files else "nothing"
        lines.append(f"{exercise}: {mark}: {held}" + (f" ({problem})" if problem else ""))
    gradable = sum(ok for _, _, ok, _ in found)
    warned = sum(ok and bool(problem) for _, _, ok, problem in found)
    what = f"{target}: {gradable} of {len(found)} exercise(s) gradable, read back as batch "
    if gradable == 0:
        lines.append(what + "grading and Gradescope read it: nothing in it can be graded; mend "
                     "your work and export again before you upload")  # fmt: skip
    elif gradable < len(found) or warned:
        lines.append(what + "grading and Gradescope read it; mend what is said above, or upload "
                     "it knowing that it may cost points")  # fmt: skip
    else:
        lines.append(what + "grading and Gradescope read it; upload this file")
    return lines


def running(exercise: str, what: str) -> str:
    """A status line's text (rich markup): what a grading runs now."""
    return escape(f"{exercise}: {what}")


def judged(first: str, done: int, total: int, file: str) -> str:
    """validate's status line (rich markup): how far it is, and the last file judged."""
    return escape(f"{first}: {done} of {total} judged, last {file}")

"""Kernels handed in as Jupyter notebooks (read with nbformat).

The kernel of an exercise is the code cell tagged `grader:EX` (EX the exercise id, e.g.
`grader:ex4`), or failing that the code cell whose first line is the comment `// grader: EX`.
Line numbers are the cell's own. The compilers see the file as `work.ipynb[cell 3]`; what a user
reads says `work.ipynb, cell 3, line 19` (`readable_locations`)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any, cast

from grader.bounded_read import read_bounded
from grader.errors import GraderError
from grader.source import MAX_SOURCE_BYTES, KernelSource, read_source

_MARKER = re.compile(r"^\s*//\s*grader:\s*(\w+)\s*$")


_IN_CELL = re.compile(r"(?P<file>[^\s\[\]:]+)\[cell (?P<cell>\d+)\](?::(?P<line>\d+))?")


def in_notebook(display_name: str) -> bool:
    """Whether a source's name is that of a notebook's cell."""
    return _IN_CELL.fullmatch(display_name) is not None


def readable_locations(text: str) -> str:
    """`work.ipynb[cell 3]:19` as a user reads it: `work.ipynb, cell 3, line 19` (a truncated
    table cell would otherwise show `3]:19`)."""

    def spelled(match: re.Match[str]) -> str:
        where = f"{match['file']}, cell {match['cell']}"
        return where + (f", line {match['line']}" if match["line"] else "")

    return _IN_CELL.sub(spelled, text)


def _notebook(path: Path) -> Any:
    """The notebook at `path`, read bounded; a GraderError naming the file (by its name: a
    batch's folders are the instructor's) where it is not one."""
    import nbformat

    try:
        raw = read_bounded(path, 16 * MAX_SOURCE_BYTES)
    except FileNotFoundError:
        raise GraderError(f"{path.name}: file not found") from None
    try:
        with warnings.catch_warnings():  # an old notebook's missing cell ids are not the point
            warnings.simplefilter("ignore")
            return cast(Any, nbformat).reads(raw.decode("utf-8"), as_version=4)
    except UnicodeDecodeError:
        raise GraderError(f"{path.name}: not UTF-8 text") from None
    except Exception as exc:  # nbformat raises several kinds for a file that is not a notebook
        raise GraderError(f"{path.name}: not a Jupyter notebook ({type(exc).__name__})") from None


def _marks(cell: Any) -> set[str]:
    """The exercises a code cell is marked for: its `grader:EX` tags, or a first line
    `// grader: EX`."""
    tags = {
        t.split(":", 1)[1]
        for t in cell.get("metadata", {}).get("tags", [])
        if str(t).startswith("grader:")
    }
    marked = _marker(str(cell.get("source", "")))
    return tags | ({marked} if marked else set())


def _marker(source: str) -> str:
    """The exercise a `// grader: EX` line marks the cell for: its first line, or its second
    after a cell magic (`%%writefile kernel.cu`, which Jupyter wants first); '' where none."""
    lines = source.split("\n", 2)
    for index, line in enumerate(lines[:2]):
        found = _MARKER.match(line)
        if found:
            return found.group(1)
        if index == 0 and not line.lstrip().startswith("%%"):
            break
    return ""


def marked_exercises(path: Path) -> set[str] | None:
    """The exercises some code cell of the notebook is marked for; None where it cannot be read
    (grading says why)."""
    try:
        notebook = _notebook(path)
    except GraderError:
        return None
    code = [c for c in notebook.cells if c.get("cell_type") == "code"]
    return set().union(*(_marks(c) for c in code)) if code else set()


def unreadable(path: Path) -> str:
    """Why the notebook cannot be read ('' where it can)."""
    try:
        _notebook(path)
    except GraderError as exc:
        return str(exc)
    return ""


def kernel_from_notebook(path: Path, exercise_id: str) -> KernelSource:
    notebook = _notebook(path)
    cells = [
        (number, cell)
        for number, cell in enumerate(notebook.cells, start=1)
        if cell.get("cell_type") == "code"
    ]
    tag = f"grader:{exercise_id}"
    chosen = [(n, c) for n, c in cells if tag in c.get("metadata", {}).get("tags", [])]
    if not chosen:
        chosen = [(n, c) for n, c in cells if _marker(str(c.get("source", ""))) == exercise_id]
    if not chosen:
        raise GraderError(
            f"{path.name}: no code cell for {exercise_id}: tag the kernel's cell '{tag}' or "
            f"start it with the line '// grader: {exercise_id}'"
        )
    if len(chosen) > 1:
        numbers = ", ".join(str(n) for n, _ in chosen)
        raise GraderError(
            f"{path.name}: cells {numbers} are all marked for {exercise_id}: keep one"
        )
    number, cell = chosen[0]
    lines = str(cell.get("source", "")).split("\n")
    # the marker and a cell magic (%%writefile), in either order, blanked: line numbers kept
    for index in range(min(2, len(lines))):
        if _MARKER.match(lines[index]) or lines[index].lstrip().startswith("%%"):
            lines[index] = ""
        else:
            break
    return KernelSource(text="\n".join(lines), display_name=f"{path.name}[cell {number}]")


def read_kernel(path: Path, exercise_id: str) -> KernelSource:
    """A kernel as handed in: a `.cu` file, or the cell of a notebook marked for the exercise."""
    if path.suffix == ".ipynb":
        return kernel_from_notebook(path, exercise_id)
    return read_source(path)

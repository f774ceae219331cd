from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from grader.errors import GraderError
from grader.notebook import kernel_from_notebook
from tests.conftest import ROOT, run_grader

SOLUTION = (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_text()


def _notebook(path: Path, *cells: tuple[str, list[str]]) -> Path:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# My work")]
    for source, tags in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["tags"] = tags
        book.cells.append(cell)
    nbformat.write(book, path)
    return path


def test_the_tagged_cell_is_the_kernel(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "work.ipynb", ("print('host')", []), (SOLUTION, ["grader:ex4"]))
    source = kernel_from_notebook(path, "ex4")
    assert source.text == SOLUTION
    assert source.display_name == "work.ipynb[cell 3]"


def test_a_first_line_marker_works_too_and_keeps_line_numbers(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "work.ipynb", ("// grader: ex4\n" + SOLUTION, []))
    source = kernel_from_notebook(path, "ex4")
    assert source.text.splitlines()[1:] == SOLUTION.splitlines()


@pytest.mark.parametrize(
    "head", ["%%writefile kernel.cu\n// grader: ex4\n", "// grader: ex4\n%%writefile kernel.cu\n"]
)
def test_a_writefile_cell_is_marked_on_its_second_line_as_jupyter_wants_the_magic_first(
    tmp_path: Path, head: str
) -> None:
    path = _notebook(tmp_path / "work.ipynb", (head + SOLUTION, []))
    source = kernel_from_notebook(path, "ex4")
    assert source.text.splitlines()[:2] == ["", ""]  # both lines blanked, line numbers kept
    assert source.text.splitlines()[2:] == SOLUTION.splitlines()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no code cell for ex4: tag the kernel's cell 'grader:ex4'"),
        ("{not json", "not a Jupyter notebook"),
    ],
)
def test_unusable_notebooks_get_one_line(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "work.ipynb"
    if content is None:
        _notebook(path, ("int x;", []))
    else:
        path.write_text(content)
    with pytest.raises(GraderError, match=message):
        kernel_from_notebook(path, "ex4")


@pytest.mark.slow
def test_grader_check_grades_a_notebook(tmp_path: Path) -> None:
    path = _notebook(
        tmp_path / "work.ipynb", (SOLUTION.replace("float c00", "float c00x"), ["grader:ex4"])
    )
    done = run_grader(["check", "ex4", "--json", "--backend", "cpu", "--file", str(path)])
    report = json.loads(done.stdout)
    assert done.returncode == 1
    message = report["checks"][0]["message"]
    lines = SOLUTION.splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "c00 +=" in text)  # first use
    # the cell and the line in words (a table cut short once showed "2]:35"), then the line
    assert message.startswith(f'work.ipynb, cell 2, line {line}: error: identifier "c00"')
    assert f"\n    {line} | {lines[line - 1].strip()}" in message and "[cell" not in message
    assert report["source"] == "work.ipynb, cell 2"

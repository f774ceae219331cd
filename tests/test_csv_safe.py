"""CSV files a TA opens in a spreadsheet or a terminal: no cell is a formula, no name repaints
the terminal."""

from __future__ import annotations

from pathlib import Path

from grader.csv_safe import safe_cell, write_csv
from tests.batch.exports import FORMULAS


def test_safe_cell_quotes_formulas_and_leaves_numbers_alone(tmp_path: Path) -> None:
    # (a carriage return is shown as an escape too: it would hide the start of the cell)
    assert [safe_cell(f) for f in FORMULAS] == ["'" + f.replace("\r", "\\x0d") for f in FORMULAS]
    assert [safe_cell(v) for v in (-2, 3.5, None, "alice", "a=b", "")] == [
        -2,
        3.5,
        None,
        "alice",
        "a=b",
        "",
    ]
    write_csv(tmp_path / "t.csv", ["=h"], [["=x", -1, 2.5]])
    assert (tmp_path / "t.csv").read_bytes() == b"'=h\r\n'=x,-1,2.5\r\n"


def test_a_name_with_terminal_escapes_is_written_shown_not_obeyed(tmp_path: Path) -> None:
    # `cat gradebook.csv` in a TA's terminal must not be repainted by a folder's name
    write_csv(tmp_path / "t.csv", ["student"], [["evil\x1b[31mred\x07"]])
    written = (tmp_path / "t.csv").read_text()
    assert "\x1b" not in written and "\x07" not in written
    assert "evil\\x1b[31mred\\x07" in written

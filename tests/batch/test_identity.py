"""Who a grade belongs to: keys that never merge two students (names alike after any clean-up,
the same name twice, a folder and a zip of one name), every member of a group graded, and CSV
exports that no student's name turns into a spreadsheet formula."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

from grader.batch.discover import discover
from grader.batch.submitters import Submitter, read_export
from grader.course import load_course
from grader.csv_safe import safe_cell, write_csv
from tests.conftest import ROOT, run_grader

EX4 = ROOT / "solutions/ex4-register-tiling"
GOOD = (EX4 / "kernel.cu").read_bytes()
WRONG = (EX4 / "wrong/no_edge_guards.cu").read_bytes()  # 33.33 of 80 on the CPU backend
FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"]

METADATA = """\
submission_1:
  :submitters:
  - :name: a b
submission_2:
  :submitters:
  - :name: a_b
submission_3:
  :submitters:
  - :name: '+cmd'
    :sid: '=HYPERLINK("http://evil.example","x")'
  - :name: Bo
    :sid: '-2+3'
    :email: '@SUM(A1)'
submission_4:
  :submitters:
  - :name: a b
"""


def _export(root: Path) -> Path:
    kernels = {"submission_1": GOOD, "submission_2": WRONG, "submission_3": GOOD}
    for folder, kernel in {**kernels, "submission_4": WRONG}.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "kernel.cu").write_bytes(kernel)
    (root / "submission_metadata.yml").write_text(METADATA)
    return root


def _csv(path: Path) -> list[list[str]]:
    with path.open(newline="") as file:
        return list(csv.reader(file))


def test_an_export_is_keyed_by_submission_and_keeps_every_submitter(tmp_path: Path) -> None:
    entries = read_export(_export(tmp_path / "export"))
    assert entries == {
        "submission_1": (Submitter("", "", "a b"),),
        "submission_2": (Submitter("", "", "a_b"),),
        "submission_3": (
            Submitter('=HYPERLINK("http://evil.example","x")', "", "+cmd"),
            Submitter("-2+3", "@SUM(A1)", "Bo"),
        ),
        "submission_4": (Submitter("", "", "a b"),),
    }


def test_an_export_entry_without_submitters_is_that_submissions_error(tmp_path: Path) -> None:
    root = _export(tmp_path / "export")
    (root / "submission_metadata.yml").write_text(
        METADATA + "submission_5:\n  :submitters: []\nsubmission_6:\n  :submitters:\n  - {}\n"
    )
    (root / "submission_7").mkdir()
    found, notes = discover(root, [load_course(ROOT).find("ex4")], tmp_path / "work")
    errors = {s.student: s.error for s in found if s.error}
    metadata = root / "submission_metadata.yml"
    assert errors == {
        "submission_5": f"{metadata}:17: no :submitters list for this submission",
        "submission_6": f"{metadata}:19: submitter 1 has no :sid, :email or :name in the export",
    }
    assert "submission_7: skipped: not listed in submission_metadata.yml" in notes
    assert {s.student for s in found if not s.error} == {f"submission_{n}" for n in (1, 2, 3, 4)}


def test_students_alike_after_clean_up_and_groups_each_get_their_grade(tmp_path: Path) -> None:
    root = _export(tmp_path / "export")
    out = tmp_path / "out"
    done = run_grader(
        ["batch", str(root), "--out", str(out), "--exercise", "ex4", "--backend", "cpu"]
    )
    assert done.returncode == 0, done.stderr
    assert _csv(out / "gradebook.csv") == [
        ["submission", "sid", "email", "name", "ex4", "total"],
        ["submission_1", "", "", "a b", "80", "80"],
        ["submission_2", "", "", "a_b", "33.33", "33.33"],
        ["submission_3", "'" + FORMULAS[0], "", "'+cmd", "80", "80"],
        ["submission_3", "'-2+3", "'@SUM(A1)", "Bo", "80", "80"],
        ["submission_4", "", "", "a b", "33.33", "33.33"],
    ]
    scores = _csv(out / "performance_scores.csv")
    assert scores[0] == ["SID", "Email", "Name", "ex4 performance"]
    assert ["'" + FORMULAS[0], "", "'+cmd", ""] in scores and [
        "'-2+3",
        "'@SUM(A1)",
        "Bo",
        "",
    ] in scores
    assert len(scores) == 6  # a row per member
    for key in ("submission_1", "submission_2", "submission_3", "submission_4"):
        assert (out / f"feedback/{key}.md").is_file()


def test_a_folder_and_a_zip_of_one_name_are_two_students(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    (root / "alice").mkdir(parents=True)
    (root / "alice/kernel.cu").write_bytes(GOOD)
    with zipfile.ZipFile(root / "alice.zip", "w") as zipped:
        zipped.writestr("kernel.cu", WRONG)
    found, notes = discover(root, [load_course(ROOT).find("ex4")], tmp_path / "work")
    assert sorted(s.student for s in found) == ["alice", "alice.zip"]
    assert (
        "alice.zip: zip, 1 of 1 exercise(s) found (graded as 'alice.zip': 'alice' is there too)"
        in notes
    )


def test_names_like_formulas_are_quoted_in_every_csv_of_a_batch(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    for name in ("alice", "=1+1", "+cmd", "@SUM(A1)", "-2"):
        (root / name).mkdir(parents=True)
        (root / name / "kernel.cu").write_bytes(GOOD if name == "alice" else WRONG)
    with zipfile.ZipFile(root / "alice.zip", "w") as zipped:
        zipped.writestr("kernel.cu", WRONG)
    out = tmp_path / "out"
    done = run_grader(
        ["batch", str(root), "--out", str(out), "--exercise", "ex4", "--backend", "cpu"]
    )
    assert done.returncode == 0, done.stderr
    assert sorted(_csv(out / "gradebook.csv")[1:]) == [
        ["'+cmd", "33.33", "33.33"],
        ["'-2", "33.33", "33.33"],
        ["'=1+1", "33.33", "33.33"],
        ["'@SUM(A1)", "33.33", "33.33"],
        ["alice", "80", "80"],
        ["alice.zip", "33.33", "33.33"],  # not merged with the folder alice
    ]
    firsts = [row[0] for row in _csv(out / "performance_scores.csv")[1:]]
    assert sorted(firsts) == ["'+cmd", "'-2", "'=1+1", "'@SUM(A1)", "alice", "alice.zip"]


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

"""Who a grade belongs to, through `grader batch`: keys that never merge two students (names alike
after any clean-up, the same name twice, a folder and a zip of one name), every member of a group
graded, and CSV exports that no student's name turns into a spreadsheet formula (the parts:
test_submitters.py, test_discover.py, tests/test_csv_safe.py)."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import pytest

from tests.batch.exports import FORMULAS, GOOD, WRONG, write_export
from tests.conftest import run_grader

# each test runs `grader batch` on an export
pytestmark = pytest.mark.slow


def _batch(course: Path, root: Path, out: Path) -> list[str]:
    """ex4 on the CPU backend, of the course with small largest cases: the names are tested."""
    where = ["--course", str(course), "batch", str(root), "--out", str(out)]
    return [*where, "--exercise", "ex4", "--backend", "cpu"]


def _csv(path: Path) -> list[list[str]]:
    with path.open(newline="") as file:
        return list(csv.reader(file))


def test_students_alike_after_clean_up_and_groups_each_get_their_grade(
    small_course: Path, tmp_path: Path
) -> None:
    root = write_export(tmp_path / "export")
    out = tmp_path / "out"
    done = run_grader(_batch(small_course, root, out))
    assert done.returncode == 0, done.stderr
    assert _csv(out / "gradebook.csv") == [
        ["submission", "SID", "Email", "Name", "ex4", "total", "not graded yet"],
        ["submission_1", "", "", "a b", "80", "80", "ex4: 20 need a GPU"],
        ["submission_2", "", "", "a_b", "33.33", "33.33", ""],
        ["submission_3", "'" + FORMULAS[0], "", "'+cmd", "80", "80", "ex4: 20 need a GPU"],
        ["submission_3", "'-2+3", "'@SUM(A1)", "Bo", "80", "80", "ex4: 20 need a GPU"],
        ["submission_4", "", "", "a b", "33.33", "33.33", ""],
    ]
    scores = _csv(out / "performance_scores.csv")
    assert scores[0] == ["submission", "SID", "Email", "Name", "ex4 on a GPU"]
    assert ["submission_3", "'" + FORMULAS[0], "", "'+cmd", ""] in scores
    assert ["submission_3", "'-2+3", "'@SUM(A1)", "Bo", ""] in scores
    assert len(scores) == 6  # a row per member
    for key in ("submission_1", "submission_2", "submission_3", "submission_4"):
        assert (out / f"feedback/{key}.md").is_file()


def test_names_like_formulas_are_quoted_in_every_csv_of_a_batch(
    small_course: Path, tmp_path: Path
) -> None:
    root = tmp_path / "submissions"
    for name in ("alice", "=1+1", "+cmd", "@SUM(A1)", "-2"):
        (root / name).mkdir(parents=True)
        (root / name / "kernel.cu").write_bytes(GOOD if name == "alice" else WRONG)
    with zipfile.ZipFile(root / "alice.zip", "w") as zipped:
        zipped.writestr("kernel.cu", WRONG)
    out = tmp_path / "out"
    done = run_grader(_batch(small_course, root, out))
    assert done.returncode == 0, done.stderr
    assert sorted(_csv(out / "gradebook.csv")[1:]) == [
        ["'+cmd", "33.33", "33.33", ""],
        ["'-2", "33.33", "33.33", ""],
        ["'=1+1", "33.33", "33.33", ""],
        ["'@SUM(A1)", "33.33", "33.33", ""],
        ["alice", "80", "80", "ex4: 20 need a GPU"],
        ["alice.zip", "33.33", "33.33", ""],  # not merged with the folder alice
    ]
    firsts = [row[0] for row in _csv(out / "performance_scores.csv")[1:]]
    assert sorted(firsts) == ["'+cmd", "'-2", "'=1+1", "'@SUM(A1)", "alice", "alice.zip"]

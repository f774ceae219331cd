"""The similarity check: near-copies are flagged whatever their names and whitespace, the stub
everyone starts from does not count, and the side-by-side page escapes what students wrote."""

from __future__ import annotations

import re
from pathlib import Path

from grader.batch.similarity import similar_pairs
from tests.conftest import ROOT, run_grader

SOLUTION = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()
STUB = (ROOT / "exercises/ex1-non-square/kernel.cu").read_text()
OTHER = (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_text()


def _disguised(text: str) -> str:
    """The same kernel with its names changed and its indentation redone."""
    for old, new in (("tx", "myX"), ("ty", "myY"), ("row", "r"), ("col", "c")):
        text = re.sub(rf"\b{old}\b", new, text)
    return text.replace("    ", "\t").replace(" = ", "=")


def test_a_disguised_copy_is_flagged_and_the_stub_does_not_count() -> None:
    texts = {"ann": SOLUTION, "bob": _disguised(SOLUTION), "cy": OTHER, "dan": STUB}
    pairs = similar_pairs(texts, STUB, 0.8)
    assert [(p.first, p.second) for p in pairs] == [("ann", "bob")]
    assert pairs[0].similarity == (1.0, 1.0)
    everything = similar_pairs(texts, STUB, 0.0001)
    assert all("dan" not in (p.first, p.second) for p in everything)  # the stub is boilerplate


def test_the_command_lists_the_pairs_and_writes_an_escaped_side_by_side_page(
    tmp_path: Path,
) -> None:
    submissions = tmp_path / "submissions"
    marked = SOLUTION.replace("{", "{ // </pre><script>alert(1)</script>\n", 1)
    for student, text in {"ann": marked, "bob": _disguised(SOLUTION), "cy": OTHER}.items():
        (submissions / student).mkdir(parents=True)
        (submissions / student / "kernel.cu").write_text(text)
    report = tmp_path / "similar.html"
    args = ["similarity", str(submissions), "--exercise", "ex1", "--report", str(report)]
    done = run_grader(args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ann ~ bob: ")
    assert "1 pair(s) of 3 submission(s) share at least 80%" in done.stdout
    assert "the starter code exercises/ex1-non-square/kernel.cu left out" in done.stdout
    assert "warning" not in done.stderr  # the course's stub is its stub
    page = report.read_text()
    assert "<h2>ann ~ bob:" in page and "<mark>" in page
    assert "starter code exercises/ex1-non-square/kernel.cu does not count" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert run_grader(args).returncode == 0  # its own page, written again
    mine = tmp_path / "mine.html"
    mine.write_text("<p>my notes</p>")
    kept = run_grader([*args[:4], "--report", str(mine)])
    assert kept.returncode == 2 and "not written by grader similarity" in kept.stderr
    assert mine.read_text() == "<p>my notes</p>"
    twice = run_grader([*args[:4], "--exercise", "ex4"])
    assert twice.returncode == 2 and "--exercise given 2 times" in twice.stderr
    bad = run_grader([*args[:4], "--threshold", "2"])
    assert bad.returncode == 2 and "--threshold 2.0: give a share between 0 and 1" in bad.stderr


def test_only_the_exercise_compared_is_read_not_another_exercise_of_the_same_student(
    tmp_path: Path,
) -> None:
    submissions = tmp_path / "submissions"
    hand_ins = {
        "ann": {"ex1-non-square": SOLUTION, "ex4-register-tiling": OTHER},
        "bob": {"ex4-register-tiling": _disguised(OTHER)},
        "cy": {"ex1-non-square": OTHER},  # cy handed in no ex4: their ex1 is not compared
    }
    for student, folders in hand_ins.items():
        for folder, text in folders.items():
            (submissions / student / folder).mkdir(parents=True)
            (submissions / student / folder / "kernel.cu").write_text(text)
    done = run_grader(["similarity", str(submissions), "--exercise", "ex4", "--threshold", "0.5"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ann ~ bob: ") and "cy" not in done.stdout
    assert "of 2 submission(s)" in done.stdout


def test_a_stub_that_is_its_solution_is_said_and_the_starter_code_named(
    course_copy: Path, tmp_path: Path
) -> None:
    """A course whose stub was overwritten with the solution: the copies of the solution share
    nothing beyond the 'starter code', which the report names and a warning explains."""
    (course_copy / "exercises/ex1-non-square/kernel.cu").write_text(SOLUTION)
    submissions = tmp_path / "submissions"
    for student in ("ann", "bob", "cy", "dan"):
        (submissions / student).mkdir(parents=True)
        (submissions / student / "kernel.cu").write_text(SOLUTION)
    args = ["--course", str(course_copy), "similarity", str(submissions), "--exercise", "ex1"]
    done = run_grader(args)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "warning: exercises/ex1-non-square/kernel.cu is the same as the solution: "
        "solutions/ex1-non-square/kernel.cu, byte for byte (overwritten?); similarity subtracts "
        "it as the starter code everyone began from, so copies of the solution show 0%: restore "
        "the stub (e.g. git checkout -- exercises) unless that is meant"
    ]
    assert done.stdout.startswith(
        "0 pair(s) of 4 submission(s) share at least 80% (names and whitespace ignored, the "
        "starter code exercises/ex1-non-square/kernel.cu left out)"
    )


def test_hand_ins_a_batch_of_the_exercise_reads_are_compared_and_the_unread_named(
    tmp_path: Path,
) -> None:
    submissions = tmp_path / "submissions"
    (submissions / "ann" / "ex1-non-square").mkdir(parents=True)
    (submissions / "ann" / "ex1-non-square" / "kernel.cu").write_text(SOLUTION)
    (submissions / "carol.cu").write_text(_disguised(SOLUTION))  # one file: ex1's here
    (submissions / "heidi").mkdir()
    (submissions / "heidi" / "my_ex1.cu").write_text(SOLUTION)  # the only .cu of her folder
    (submissions / "erin.zip").write_bytes(b"not a zip")
    done = run_grader(["similarity", str(submissions), "--exercise", "ex1", "--threshold", "0.5"])
    assert done.returncode == 0, done.stderr
    assert "3 pair(s) of 3 submission(s)" in done.stdout
    assert "ann ~ carol: " in done.stdout and "heidi" in done.stdout
    assert "not compared (unreadable or refused): erin (" in done.stdout

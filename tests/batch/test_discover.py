"""Finding a batch's submissions, hostile ones included: a Gradescope export's entries, a folder
and a zip of one name as two students, and each bad zip, link, pipe or device becomes that student's
recorded result (0 points, the reason in their feedback and in the summary) while everyone else
is graded; nothing is followed, nothing waits forever, nothing is written outside the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.batch.discover import discover
from grader.batch.names import file_name, note_owner
from grader.batch.outputs import write_nothing_graded
from grader.batch.student_folder import Submission
from grader.course import Exercise, load_course
from tests.batch.exports import METADATA, WRONG, write_export
from tests.batch.zips import GOOD, write_zip
from tests.conftest import ROOT, run_grader

LONG = "k" * 300


@pytest.fixture(scope="module")
def ex4() -> Exercise:
    return load_course(ROOT).find("ex4")


def _patched(path: Path, local: int, central: int, value: bytes) -> Path:
    """`value` written at offset `local` of every local header and `central` of every central
    directory entry: what a hand-made hostile zip holds."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = data.find(signature)
        while at != -1:
            data[at + offset : at + offset + len(value)] = value
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    return path


def _encrypted(path: Path, name: str = "kernel.cu") -> Path:
    """A member whose flag bit 0 says it is encrypted (zipfile clears flag_bits on writing,
    so the headers are patched)."""
    write_zip(path, {name: b"\x00" * 12 + GOOD}, zipfile.ZIP_STORED)
    return _patched(path, 6, 8, b"\x01\x00")


def _duplicate(path: Path) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns, then writes both
        return _zip_pairs(path, [("kernel.cu", GOOD), ("kernel.cu", b"// the other one")])


def _zip_pairs(path: Path, pairs: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data in pairs:
            zipped.writestr(name, data)
    return path


def _link(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zipped:
        info = zipfile.ZipInfo("kernel.cu")
        info.external_attr = 0o120777 << 16
        zipped.writestr(info, "/etc/passwd")
    return path


HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "long_name": (
        lambda p: write_zip(p, {LONG + ".cu": GOOD, "kernel.cu": GOOD}),
        "over 255 bytes",
    ),
    "long_path": (
        lambda p: write_zip(p, {"/".join(["d" * 200] * 25) + "/kernel.cu": GOOD}),
        "a path over 1024 bytes",
    ),
    "file_and_folder": (
        lambda p: write_zip(
            p, {"ex4-register-tiling": b"x", "ex4-register-tiling/kernel.cu": GOOD}
        ),
        "is a file, too",
    ),
    "folder_then_file": (
        lambda p: write_zip(p, {"ex4/kernel.cu": GOOD, "ex4": b"x"}),
        "a folder of that name, too",
    ),
    "encrypted": (_encrypted, "encrypted: hand in a zip without a password"),
    "unknown_method": (
        lambda p: _patched(write_zip(p, {"kernel.cu": GOOD}), 8, 10, (99).to_bytes(2, "little")),
        "compressed with method 99 (unknown)",
    ),
    "lzma": (lambda p: write_zip(p, {"kernel.cu": GOOD}, zipfile.ZIP_LZMA), "method 14 (lzma)"),
    "bad_crc": (
        lambda p: _patched(write_zip(p, {"kernel.cu": GOOD}), 14, 16, b"\xde\xad\xbe\xef"),
        "Bad CRC-32",
    ),
    "duplicate": (_duplicate, "given twice"),
    "link": (_link, "a symbolic link"),
    "escape": (lambda p: write_zip(p, {"../../escaped.cu": GOOD}), "points outside the archive"),
    "not_a_zip": (lambda p: (p.write_bytes(b"MZ\x90\x00 not a zip" * 100), p)[1], "not a zip"),
    "truncated": (
        lambda p: (p.write_bytes(write_zip(p, {"kernel.cu": GOOD}).read_bytes()[:300]), p)[1],
        "not a zip archive, or a damaged one",
    ),
    "too_many": (lambda p: write_zip(p, {f"f{i}.txt": b"" for i in range(201)}), "201 files, over"),
    "bomb": (
        lambda p: write_zip(p, {"kernel.cu": b"\0" * (21 * 1024 * 1024)}),
        "over 20,971,520 bytes once extracted",
    ),
}


def _discover(root: Path, exercise: Exercise, work: Path) -> dict[str, Submission]:
    found, _ = discover(root, [exercise], work)
    return {s.student: s for s in found}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_zip_is_that_students_error_and_the_others_are_found(
    case: str, ex4: Exercise, tmp_path: Path
) -> None:
    root = tmp_path / "submissions"
    (root / "alice").mkdir(parents=True)
    (root / "alice/kernel.cu").write_bytes(GOOD)
    make, reason = HOSTILE[case]
    make(root / "mallory.zip")
    write_zip(root / "zed.zip", {"ex4-register-tiling/kernel.cu": GOOD})
    found, notes = discover(root, [ex4], tmp_path / "out/work")
    by_key = {s.student: s for s in found}
    assert by_key["alice"].error is None and by_key["alice"].kernel is not None
    assert by_key["zed"].error is None and by_key["zed"].kernel is not None
    bad = by_key["mallory"]
    assert bad.kernel is None and bad.error is not None
    assert bad.error.startswith("mallory.zip: ") and reason in bad.error
    assert "\n" not in bad.error and len(bad.error) < 400
    assert any(n.startswith("mallory.zip: refused: ") for n in notes)
    # nothing half-extracted is left to be graded, nothing written outside the output
    assert not (tmp_path / "out/work/unzipped/mallory").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "submissions"]


def _student(root: Path, name: str) -> Path:
    (root / name).mkdir(parents=True)
    return root / name


def test_links_pipes_and_devices_in_a_students_folder_are_refused_unopened(
    ex4: Exercise, tmp_path: Path
) -> None:
    root = tmp_path / "submissions"
    _student(root, "alice").joinpath("kernel.cu").write_bytes(GOOD)
    os.mkfifo(_student(root, "fifo") / "kernel.cu")
    (_student(root, "zero") / "kernel.cu").symlink_to("/dev/zero")
    (_student(root, "linked") / "kernel.cu").symlink_to(root / "alice/kernel.cu")
    (_student(root, "folder") / "kernel.cu").mkdir()
    (_student(root, "exdir") / "ex4-register-tiling").symlink_to(root / "alice")
    (root / "elsewhere").symlink_to(root / "alice", target_is_directory=True)
    (root / "piped.zip").symlink_to("/dev/zero")
    os.mkfifo(root / "fifo.zip")
    by_key = _discover(root, ex4, tmp_path / "work")
    assert by_key["alice"].error is None
    reasons = {key: s.error for key, s in by_key.items() if key != "alice"}
    assert reasons == {
        "fifo": "kernel.cu: not a regular file (a pipe)",
        "zero": "kernel.cu: a symbolic link; hand in the file itself, not a link",
        "linked": "kernel.cu: a symbolic link; hand in the file itself, not a link",
        "folder": "kernel.cu: is a directory, expected a file",
        "exdir": "ex4-register-tiling: a symbolic link to a folder; hand in the folder itself, "
        "not a link",
        "elsewhere": "elsewhere: a symbolic link, not followed: copy the work in itself",
        "piped": "piped.zip: a symbolic link, not followed: copy the work in itself",
        "fifo.zip": "fifo.zip: not a regular file (a pipe)",
    }


@pytest.fixture
def hostile_batch(tmp_path: Path) -> Path:
    """A good student, and one of each kind of hostile submission next to them."""
    root = tmp_path / "submissions"
    _student(root, "alice").joinpath("kernel.cu").write_bytes(GOOD)
    for case in ("encrypted", "unknown_method", "long_name", "file_and_folder", "bad_crc"):
        HOSTILE[case][0](root / f"{case}.zip")
    _duplicate(root / "duplicate.zip")
    os.mkfifo(_student(root, "fifo") / "kernel.cu")
    (_student(root, "zero") / "kernel.cu").symlink_to("/dev/zero")
    _student(root, "[bold]markup").joinpath("kernel.cu").write_bytes(GOOD)
    _encrypted(root / "markup.zip", "[/dim][/nope]kernel.cu")  # its note: not rich markup
    write_zip(root / ("z" * 251 + ".zip"), {"kernel.cu": GOOD})  # feedback/<that>.json: too long
    os.mkdir(bytes(root) + b"/\xff\xfe")  # a name that is not UTF-8: SQLite and CSV refuse it
    (root / os.fsdecode(b"\xff\xfe") / "kernel.cu").write_bytes(GOOD)
    return root


@pytest.mark.slow
def test_a_batch_of_hostile_submissions_grades_the_good_one_and_records_each_reason(
    hostile_batch: Path, small_course: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    before = sorted(p.name for p in tmp_path.iterdir())
    args = [str(hostile_batch), "--out", str(out), "--exercise", "ex4", "--backend", "cpu"]
    course = ["--course", str(small_course)]
    done = subprocess.run(
        [sys.executable, "-m", "grader", *course, "batch", *args, "--seed", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a FIFO read would wait forever, /dev/zero would fill memory
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    rows = dict(line.split(",", 1) for line in (out / "gradebook.csv").read_text().splitlines()[1:])
    assert (
        rows["alice"] == "80,80,ex4: 20 need a GPU"
        and rows["[bold]markup"] == "80,80,ex4: 20 need a GPU"
    )
    assert rows["z" * 251] == "80,80,ex4: 20 need a GPU"
    assert [v for k, v in rows.items() if k.startswith("\\xff\\xfe~")] == [
        "80,80,ex4: 20 need a GPU"
    ]
    reasons = {
        "encrypted": "encrypted: hand in a zip without a password",
        "unknown_method": "compressed with method 99",
        "long_name": "a name over 255 bytes",
        "file_and_folder": "is a file, too",
        "bad_crc": "Bad CRC-32",
        "duplicate": "given twice",
        "fifo": "kernel.cu: not a regular file (a pipe)",
        "zero": "kernel.cu: a symbolic link",
        "markup": "'[/dim][/nope]kernel.cu': encrypted",
    }
    summary = (out / "summary.md").read_text()
    for student, reason in reasons.items():
        assert rows[student] == "0,0,", student
        assert reason in (out / f"feedback/{student}.md").read_text(), student
        assert f"- {student} (ex4): " in summary and reason in summary, student
        assert f"{student}" in done.stderr and "refused" in done.stderr
    assert "9 refused" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "out"])
    long_feedback = [p.name for p in (out / "feedback").iterdir() if p.name.startswith("zzz")]
    assert len(long_feedback) == 2 and all(len(n) < 100 for n in long_feedback)


def test_an_export_entry_without_submitters_is_that_submissions_error(tmp_path: Path) -> None:
    root = write_export(tmp_path / "export")
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


def _kernels(found: list[Submission]) -> dict[tuple[str, str], str]:
    """(student, exercise) -> the kernel's text, for every submission with one."""
    return {(s.student, s.exercise.id): s.kernel.read_text() for s in found if s.kernel}


def test_the_layouts_students_hand_in_are_all_read(tmp_path: Path, ex4: Exercise) -> None:
    root = tmp_path / "submissions"
    root.mkdir()
    with zipfile.ZipFile(root / "ann.zip", "w") as zipped:  # a zipped folder, macOS style
        zipped.writestr("ann/ex4-register-tiling/kernel.cu", GOOD)
        zipped.writestr("__MACOSX/ann/._kernel.cu", b"\0")
    (root / "ben/work").mkdir(parents=True)  # a folder in a folder, the kernel named otherwise
    (root / "ben/work/matmul.cu").write_bytes(GOOD)
    (root / "cat.cu").write_bytes(GOOD)  # a single file
    (root / "dan").mkdir()  # two .cu files: which is the kernel is not guessed
    (root / "dan/a.cu").write_bytes(GOOD)
    (root / "dan/b.cu").write_bytes(WRONG)
    (root / "notes.txt").write_text("hello")
    found, notes = discover(root, [ex4], tmp_path / "work")
    kernels = _kernels(found)
    assert set(kernels) == {("ann", "ex4"), ("ben", "ex4"), ("cat", "ex4")}
    assert all(text.encode() == GOOD for text in kernels.values())
    assert any(
        n.startswith("dan: folder, 0 of 1 exercise(s) found; not read: a.cu, b.cu") for n in notes
    )
    assert "cat.cu: file, 1 of 1 exercise(s) found" in notes
    assert "notes.txt: skipped: not a folder, a .zip, a .cu file or a notebook" in notes


def test_with_several_exercises_what_is_not_read_is_named_and_a_notebook_gives_its_cells_only(
    tmp_path: Path,
) -> None:
    course = load_course(ROOT)
    ex1, ex4 = course.find("ex1"), course.find("ex4")
    root = tmp_path / "submissions"
    (root / "gina").mkdir(parents=True)
    (root / "gina/my_kernel.cu").write_bytes(GOOD)  # whose exercise? not guessed
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {"cells": [{**cell, "source": "// grader: ex4\n" + GOOD.decode()}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    (root / "frank.ipynb").write_text(json.dumps(notebook))
    found, notes = discover(root, [ex1, ex4], tmp_path / "work")
    assert "frank.ipynb: file, 1 of 2 exercise(s) found" in notes  # ex1: not handed in
    assert [(s.student, s.exercise.id) for s in found if s.kernel] == [("frank", "ex4")]
    assert any(
        n.startswith("gina: folder, 0 of 2 exercise(s) found; not read: my_kernel.cu")
        for n in notes
    )


def test_a_single_cu_file_for_several_exercises_is_not_read_and_its_student_kept(
    tmp_path: Path,
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    root.mkdir()
    (root / "cat.cu").write_bytes(GOOD)
    found, notes = discover(root, [course.find("ex1"), course.find("ex4")], tmp_path / "work")
    # cat stays in the batch (a gradebook row, feedback saying why) with nothing recorded: how
    # the batch was run decides this, and an earlier batch's grade of it stands
    assert [(s.student, s.exercise.id, s.kernel, s.error) for s in found] == [
        ("cat", "ex1", None, None),
        ("cat", "ex4", None, None),
    ]
    assert notes == [
        "cat.cu: file, 0 of 2 exercise(s) found; not read: cat.cu (one kernel for 2 exercises, "
        "which one it is is not guessed: hand in a folder or zip with each kernel in its "
        "exercise's folder, or the instructor grades it with one --exercise, into an output "
        "folder of its own)"
    ]


def test_a_kernel_too_deep_to_be_looked_for_is_named_with_where_kernels_go(
    tmp_path: Path,
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    (root / "eli" / "a" / "ex1-non-square").mkdir(parents=True)
    (root / "eli" / "a" / "ex1-non-square" / "kernel.cu").write_bytes(GOOD)
    (root / "eli" / "b").mkdir()  # a second folder at the top: not one folder holding it all
    (root / "eli" / "b" / "notes.txt").write_text("notes\n")
    _found, [note] = discover(root, [course.find("ex1")], tmp_path / "work")
    assert note.startswith("eli: folder, 0 of 1 exercise(s) found; not read: ")
    assert "(not where a kernel is looked for: named as the exercise's stub is" in note


def test_a_lone_kernel_at_the_top_for_several_exercises_is_told_why_it_was_not_read(
    tmp_path: Path,
) -> None:
    # the ninth walk: erin/kernel.cu, graded for ex1 and ex4, was told to name it kernel.cu
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    (root / "erin").mkdir(parents=True)
    (root / "erin" / "kernel.cu").write_bytes(GOOD)
    _found, [note] = discover(root, [course.find("ex1"), course.find("ex4")], tmp_path / "work")
    assert note.endswith(
        "not read: kernel.cu (outside its exercise's folder, where 2 exercises are graded: "
        "which exercise a kernel is for is not guessed; put each in its exercise's folder, named "
        "as the stub is (e.g. ex1-non-square/kernel.cu))"
    ), note


def test_a_notebook_that_cannot_be_read_is_refused_as_a_broken_zip_is(tmp_path: Path) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    root.mkdir()
    (root / "bea.ipynb").write_text("{not json")
    found, notes = discover(root, [course.find("ex1")], tmp_path / "work")
    [bea] = found
    assert (bea.student, bea.kernel, bea.error) == (
        "bea",
        None,
        "bea.ipynb: not a Jupyter notebook (NotJSONError)",
    )
    assert notes == ["bea.ipynb: refused: not a Jupyter notebook (NotJSONError)"]


def test_a_notebook_marked_only_for_other_exercises_is_not_read_and_says_so(
    tmp_path: Path,
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    root.mkdir()
    cell = {"cell_type": "code", "metadata": {}, "source": "// grader: ex4\n__global__ void k() {}",
            "outputs": [], "execution_count": None}  # fmt: skip
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "only4.ipynb").write_text(json.dumps(notebook))
    found, notes = discover(root, [course.find("ex1")], tmp_path / "work")
    assert [(s.student, s.kernel, s.error) for s in found] == [("only4", None, None)]
    assert notes == [
        "only4.ipynb: file, 0 of 1 exercise(s) found; not read: only4.ipynb (its cells are "
        "marked for ex4, none for ex1)"
    ]


def test_the_feedback_of_a_file_not_read_says_why_to_its_student_only(tmp_path: Path) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    (root / "dog").mkdir(parents=True)  # handed in nothing
    (root / "cat.cu").write_bytes(GOOD)
    found, notes = discover(root, [course.find("ex1"), course.find("ex4")], tmp_path / "work")
    feedback = tmp_path / "feedback"
    feedback.mkdir()
    write_nothing_graded(feedback, sorted({s.student for s in found}), [], notes)
    cat = (feedback / "cat.md").read_text()
    assert cat.startswith("# Nothing graded") and "one kernel for 2 exercises" in cat
    assert "one kernel" not in (feedback / "dog.md").read_text()


@pytest.mark.parametrize(
    ("entry", "students", "owner"),
    [
        ("cat.cu", {"cat"}, "cat"),
        ("cat", {"cat"}, "cat"),
        ("cat.zip", {"cat", "cat.zip"}, "cat.zip"),  # its stem clashed: keyed by its whole name
        ("cat.zip", {"cat.zip.zip"}, None),
        (".hidden", {"cat"}, None),
    ],
)
def test_a_discovery_note_belongs_to_the_student_its_entry_is_keyed_as(
    entry: str, students: set[str], owner: str | None
) -> None:
    assert note_owner(entry, students) == owner


def test_students_differing_only_by_case_never_share_a_file_name_anywhere() -> None:
    # feedback/Alice.md and feedback/alice.md are one file on macOS and Windows
    names = [file_name(k) for k in ("alice", "Alice", "ALICE")]
    assert names[0] == "alice" and len({n.lower() for n in names}) == 3
    assert names[1].startswith("Alice~") and names[2].startswith("ALICE~")


def test_a_stray_file_beside_exercise_folders_is_not_another_exercises_kernel(
    tmp_path: Path, ex4: Exercise
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    (root / "hank" / "ex1-non-square").mkdir(parents=True)
    (root / "hank" / "ex1-non-square" / "kernel.cu").write_bytes(GOOD)
    (root / "hank" / "scratch.cu").write_bytes(GOOD)
    ex3 = course.find("ex3")
    others = [e for e in course.exercises if e.id != "ex3"]
    found, notes = discover(root, [ex3], tmp_path / "work", others)
    assert [(s.student, s.kernel) for s in found] == [("hank", None)]
    assert "not read: scratch.cu" in notes[0]


def test_the_summary_lists_every_skipped_entry_with_its_reason(
    small_course: Path, tmp_path: Path
) -> None:
    root = tmp_path / "submissions"
    (root / "ann").mkdir(parents=True)
    (root / "ann/kernel.cu").write_bytes(GOOD)
    (root / "notes.txt").write_text("hello")
    out = tmp_path / "out"
    args = ["--course", str(small_course), "batch", str(root), "--out", str(out)]
    done = run_grader([*args, "--exercise", "ex4", "--backend", "cpu"])
    assert done.returncode == 0, done.stderr
    summary = (out / "summary.md").read_text()
    section = summary.split("## Skipped in the submissions directory (not read)\n\n", 1)[1]
    assert section.startswith(
        "- notes.txt: skipped: not a folder, a .zip, a .cu file or a notebook\n"
    )


def test_hand_ins_of_one_name_in_two_forms_are_two_students(tmp_path: Path, ex4: Exercise) -> None:
    root = tmp_path / "submissions"
    (root / "top2").mkdir(parents=True)
    (root / "top2/kernel.cu").write_bytes(GOOD)
    (root / "top2.cu").write_bytes(WRONG)  # found by a red-team pass: both were "top2"
    (root / "ann.cu").write_bytes(GOOD)
    (root / "ann.ipynb").write_text(
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    found, notes = discover(root, [ex4], tmp_path / "work")
    assert sorted(s.student for s in found) == ["ann.cu", "ann.ipynb", "top2", "top2.cu"]
    assert (
        "top2.cu: file, 1 of 1 exercise(s) found "
        "(graded as 'top2.cu': another hand-in is 'top2' too)" in notes
    )


def test_macos_copies_and_hidden_entries_are_not_kernels_and_are_named(
    tmp_path: Path, ex4: Exercise
) -> None:
    root = tmp_path / "submissions"
    (root / "ann").mkdir(parents=True)
    (root / "ann/matmul.cu").write_bytes(GOOD)
    (root / "ann/._matmul.cu").write_bytes(b"\0\5\26\7")  # macOS's resource-fork copy
    (root / ".hidden.zip").write_bytes(b"PK")
    found, notes = discover(root, [ex4], tmp_path / "work")
    assert [(s.student, s.kernel.name if s.kernel else None) for s in found] == [
        ("ann", "matmul.cu")
    ]
    assert ".hidden.zip: skipped: a hidden file or folder" in notes


def test_an_exports_own_hand_in_times_are_taken(tmp_path: Path, ex4: Exercise) -> None:
    root = write_export(tmp_path / "export")
    metadata = root / "submission_metadata.yml"
    text = metadata.read_text().replace(
        "submission_1:\n", "submission_1:\n  :created_at: 2026-10-01 23:00:00.123456 -07:00\n", 1
    )
    metadata.write_text(text)
    found, _ = discover(root, [ex4], tmp_path / "work")
    first = next(s for s in found if s.student == "submission_1")
    assert first.time_source == "export"
    assert first.submitted_at == pytest.approx(1790920800.123456)  # 2026-10-02 06:00:00 UTC
    other = next(s for s in found if s.student == "submission_2")
    assert other.submitted_at is None  # no time recorded: none is guessed


def test_a_notebook_with_no_marked_cell_is_graded_and_the_batch_says_why_it_scores_0(
    tmp_path: Path, ex4: Exercise
) -> None:
    root = tmp_path / "submissions"
    (root / "hana").mkdir(parents=True)
    cell = {"cell_type": "code", "source": "__global__ void k() {}", "metadata": {},
            "outputs": [], "execution_count": None}  # fmt: skip
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "hana" / "work.ipynb").write_text(json.dumps(notebook))
    found, notes = discover(root, [ex4], tmp_path / "work")
    assert [s.kernel.name for s in found if s.kernel] == ["work.ipynb"]
    assert notes == [
        "hana: folder, 1 of 1 exercise(s) found; work.ipynb has no cell marked for an exercise:"
        " graded 0, its feedback says how to mark one"
    ]


def test_kernels_placed_for_exercises_not_graded_this_time_are_not_called_unread(
    tmp_path: Path, ex4: Exercise
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    for exercise in course.exercises:
        (root / "ann" / exercise.dir_name).mkdir(parents=True)
        (root / "ann" / exercise.dir_name / "kernel.cu").write_bytes(GOOD)
    (root / "ann" / "scratch.cu").write_bytes(GOOD)  # where no exercise looks
    others = [e for e in course.exercises if e.id != "ex4"]
    _found, notes = discover(root, [ex4], tmp_path / "work", others)
    assert notes == [
        "ann: folder, 1 of 1 exercise(s) found; not read: scratch.cu (the kernel graded is "
        "ex4-register-tiling/kernel.cu: each exercise's kernel is named as its stub is, in the "
        "exercise's folder, or is the folder's only .cu file where one exercise is graded)"
    ]


def test_a_folder_named_for_another_exercise_is_never_unwrapped_as_this_ones(
    tmp_path: Path, ex4: Exercise
) -> None:
    course = load_course(ROOT)
    root = tmp_path / "submissions"
    (root / "cy" / "ex1-non-square").mkdir(parents=True)  # cy handed in ex1 only
    (root / "cy" / "ex1-non-square" / "kernel.cu").write_bytes(GOOD)
    others = [e for e in course.exercises if e.id != "ex4"]
    found, _notes = discover(root, [ex4], tmp_path / "work", others)
    assert [(s.student, s.kernel) for s in found] == [("cy", None)]


def test_one_students_folder_given_as_the_submissions_is_one_line(tmp_path: Path) -> None:
    # found by the seventh walk: alice's exercise folders were graded as students
    alice = tmp_path / "alice"
    (alice / "ex1-non-square").mkdir(parents=True)
    (alice / "ex1-non-square" / "kernel.cu").write_text("// mine\n")
    (alice / "ex4-register-tiling").mkdir()
    done = run_grader(["batch", str(alice), "--out", str(tmp_path / "out"), "--exercise", "ex1"])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "holds ex1-non-square, an exercise's folder: this is one student's hand-in" in (
        done.stderr
    )
    assert not (tmp_path / "out").exists()  # nothing left behind

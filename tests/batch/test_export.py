"""`grader export`: the hand-in zip holds each exercise's kernel and answers in the layout batch
grading and Gradescope read, is read back as they read it, and never overwrites a file."""

from __future__ import annotations

import zipfile
from pathlib import Path

from tests.conftest import run_grader


def test_the_zip_holds_what_graders_read_and_says_what_is_missing(
    course_copy: Path, tmp_path: Path
) -> None:
    (course_copy / "exercises/ex2-tile-sweep/answers.yaml").unlink()
    solved = course_copy / "solutions/ex1-non-square/kernel.cu"
    (course_copy / "exercises/ex1-non-square/kernel.cu").write_bytes(solved.read_bytes())
    target = tmp_path / "hand-in.zip"
    done = run_grader(["--course", str(course_copy), "export", str(target)])
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(target) as zipped:
        assert sorted(zipped.namelist()) == [
            "ex1-non-square/kernel.cu",
            "ex2-tile-sweep/kernel.cu",
            "ex3-profiling/answers.yaml",
            "ex3-profiling/kernel.cu",
            "ex4-register-tiling/kernel.cu",
        ]
    lines = done.stdout.splitlines()
    assert "ex1: ok: ex1-non-square/kernel.cu" in lines
    assert (
        "ex2: warning: ex2-tile-sweep/kernel.cu (kernel.cu still says TODO (line 14): is the "
        "stub's work done?; no answers.yaml: its questions will score 0)" in lines
    )
    assert (
        "ex3: warning: ex3-profiling/kernel.cu, ex3-profiling/answers.yaml (kernel.cu still says "
        "TODO (line 26): is the stub's work done?; not answered (null): naive.duration_us, "
        "naive.dram_read_mb, naive.l2_mb and 15 more; the explanation is still the template's "
        "question: it will score 0)" in lines
    )
    assert "ex4: warning: ex4-register-tiling/kernel.cu (kernel.cu still says TODO (lines " in (
        done.stdout
    )
    assert lines[-1].endswith(
        "4 of 4 exercise(s) gradable, read back as batch grading and Gradescope read it; mend "
        "what is said above, or upload it knowing that it may cost points"
    )


def test_answers_that_grading_cannot_read_are_said_before_upload(
    course_copy: Path, tmp_path: Path
) -> None:
    answers = course_copy / "exercises/ex3-profiling/answers.yaml"
    answers.write_text(answers.read_text().replace('gpu: ""', "gpu: [unclosed"))
    target = tmp_path / "hand-in.zip"
    done = run_grader(["--course", str(course_copy), "export", str(target), "--exercise", "ex3"])
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stdout.splitlines() if x.startswith("ex3: ")]
    assert line.startswith("ex3: warning: ") and "answers.yaml:" in line and "YAML" in line
    assert "its questions will score 0" in line


def test_a_missing_kernel_is_not_gradable_and_exits_1(course_copy: Path, tmp_path: Path) -> None:
    (course_copy / "exercises/ex1-non-square/kernel.cu").unlink()
    target = tmp_path / "hand-in.zip"
    args = ["--course", str(course_copy), "export", str(target), "--exercise", "ex1"]
    done = run_grader(args)
    assert done.returncode == 1
    assert "ex1: NOT GRADABLE: nothing (no kernel.cu: nothing to grade)" in done.stdout


def test_an_existing_file_is_never_overwritten(course_copy: Path, tmp_path: Path) -> None:
    target = tmp_path / "hand-in.zip"
    target.write_bytes(b"my earlier hand-in")
    done = run_grader(["--course", str(course_copy), "export", str(target)])
    assert done.returncode == 2 and "exists: choose another name" in done.stderr
    assert target.read_bytes() == b"my earlier hand-in"


def test_a_dangling_link_or_a_missing_folder_is_one_line_and_nothing_is_written(
    course_copy: Path, tmp_path: Path
) -> None:
    dangling = tmp_path / "hand-in.zip"
    dangling.symlink_to(tmp_path / "nowhere.zip")  # found by a red-team pass: a traceback
    for target, words in (
        (dangling, "exists: choose another name"),
        (tmp_path / "missing" / "hand-in.zip", "no folder"),
    ):
        done = run_grader(["--course", str(course_copy), "export", str(target)])
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "nowhere.zip").exists()


def test_a_value_of_the_wrong_type_is_said_once_not_also_as_unanswered(
    course_copy: Path, tmp_path: Path
) -> None:
    answers = course_copy / "exercises/ex2-tile-sweep/answers.yaml"
    answers.write_text(
        answers.read_text().replace("fastest_tile_size: null", 'fastest_tile_size: "32"')
    )
    target = tmp_path / "hand-in.zip"
    done = run_grader(["--course", str(course_copy), "export", str(target), "--exercise", "ex2"])
    line = next(x for x in done.stdout.splitlines() if x.startswith("ex2: "))
    assert "fastest_tile_size: Input should be a valid integer" in line
    assert "not answered (null): measurements.8.time_ms" in line
    assert line.count("fastest_tile_size") == 1

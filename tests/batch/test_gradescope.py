"""The Gradescope entry point, its package, and the student release, as an instructor uses them."""

from __future__ import annotations

import json
import re
import stat
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_grader


@pytest.mark.slow
def test_the_entry_point_writes_results_json_in_gradescopes_form(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "kernel.cu").write_bytes(
        (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_bytes()
    )
    results = tmp_path / "results/results.json"
    done = run_grader(
        [
            "gradescope",
            "--exercise",
            "ex4",
            "--submission",
            str(submission),
            "--results",
            str(results),
        ]
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    names = [t["name"] for t in data["tests"]]
    assert names[0] == "ex4: compile" and "ex4: performance (graded separately)" in names
    timing = next(t for t in data["tests"] if t["name"] == "ex4: performance (graded separately)")
    assert timing["max_score"] == 0 and timing["output"].startswith("graded separately")
    assert "status" not in timing  # neither passed nor failed: Gradescope shows no red cross
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
        assert test is timing or test["status"] in ("passed", "failed")
    assert data["score"] == 80
    (grading,) = data["extra_data"]["gradings"]
    assert grading["exercise"] == "ex4" and "CPU" in grading["device"]
    # the seed: in the log only the instructor sees (stdout_visibility hidden), not results.json
    assert data["stdout_visibility"] == "hidden"
    assert re.match(
        r"ex4: seed \d+ on .*CPU.*; reproduce with grader check ex4 --seed \d+", done.stdout
    )


def test_the_package_holds_setup_run_and_the_course_without_solutions(tmp_path: Path) -> None:
    target = tmp_path / "autograder.zip"
    done = run_grader(["gradescope-package", str(target), "--exercise", "ex4"])
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(target) as zipped:
        names = zipped.namelist()
        run = zipped.getinfo("run_autograder")
        assert stat.S_IMODE(run.external_attr >> 16) & 0o111
        assert "--exercise ex4" in zipped.read("run_autograder").decode()
    assert "setup.sh" in names and "course.yaml" in names and "grader/cli.py" in names
    assert not any(n.startswith("solutions/") for n in names)
    again = run_grader(["gradescope-package", str(target)])
    assert again.returncode == 2 and "exists" in again.stderr


def test_release_copies_the_course_without_solutions(tmp_path: Path) -> None:
    target = tmp_path / "student-copy"
    assert run_grader(["release", str(target)]).returncode == 0
    assert (target / "exercises/ex4-register-tiling/kernel.cu").is_file()
    assert (target / "grader/cli.py").is_file()
    assert not (target / "solutions").exists()
    assert run_grader(["--course", str(target), "list"]).returncode == 0
    readme = (target / "README.md").read_text()  # the students' README, with the spec's points
    assert "grader check ex1" in readme and "batch" not in readme and "secret" not in readme
    assert (
        "| ex4 | 2x2 register tiling | `exercises/ex4-register-tiling/` | 10 for compiling"
        in readme
    )
    for block in readme.split("```sh\n")[1:]:  # each block's comments in one column
        commands = block.split("```")[0].splitlines()
        assert len({line.index("  # ") for line in commands}) == 1, commands
    refused = run_grader(["release", str(target)])
    assert refused.returncode == 2 and "not empty" in refused.stderr


def test_a_results_path_that_is_a_folder_is_one_line_before_grading(tmp_path: Path) -> None:
    (tmp_path / "submission").mkdir()
    (tmp_path / "results").mkdir()
    args = ["gradescope", "--submission", str(tmp_path / "submission")]
    done = run_grader([*args, "--results", str(tmp_path / "results")])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--results {tmp_path / 'results'}: a directory; give the file" in done.stderr
    empty = run_grader([*args, "--results", str(tmp_path / "results/results.json")])
    assert empty.returncode == 0, empty.stderr
    output = json.loads((tmp_path / "results/results.json").read_text())["output"]
    assert output.startswith("Nothing was graded; nothing found for ex1")

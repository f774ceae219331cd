"""The Gradescope entry point, its package, and the student release, as an instructor uses them."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
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


def test_a_kernel_the_entry_point_cannot_read_is_named_with_why(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "my_kernel.cu").write_text("// which exercise?\n")
    results = tmp_path / "results.json"
    done = run_grader(
        ["gradescope", "--exercise", "ex1", "--exercise", "ex4", "--submission", str(submission),
         "--results", str(results)]
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    output = json.loads(results.read_text())["output"]
    assert output.startswith(
        "Nothing was graded; nothing found for ex1, ex4 (not read: my_kernel.cu"
    )
    assert "which exercise a kernel is for is not guessed" in output


def test_the_package_holds_setup_run_and_the_course_without_solutions(tmp_path: Path) -> None:
    target = tmp_path / "autograder.zip"
    done = run_grader(["gradescope-package", str(target), "--exercise", "ex4"])
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(target) as zipped:
        names = zipped.namelist()
        run = zipped.getinfo("run_autograder")
        assert stat.S_IMODE(run.external_attr >> 16) & 0o111
        assert "--exercise ex4" in zipped.read("run_autograder").decode()
        # the grader's bytecode is built into the image, not in every submission's container
        setup = zipped.read("setup.sh").decode().splitlines()
        assert "/autograder/venv/bin/python -m compileall -q /autograder/source/grader" in setup
    assert "setup.sh" in names and "course.yaml" in names and "grader/cli.py" in names
    assert not any(n.startswith("solutions/") for n in names)
    again = run_grader(["gradescope-package", str(target)])
    assert again.returncode == 2 and "exists" in again.stderr


def _grader_files(package: Path) -> list[str]:
    with zipfile.ZipFile(package) as zipped:
        return sorted(n for n in zipped.namelist() if n.startswith("grader/"))


def test_a_course_folder_alone_packages_the_running_graders_own_source(
    course_copy: Path, tmp_path: Path
) -> None:
    """--course names a course (course.yaml, exercises, solutions, reference): the grader and its
    pyproject.toml, which setup.sh installs, come from where the running grader is imported."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ours = elsewhere / "course.zip"
    args = ["--course", str(course_copy), "gradescope-package", str(ours), "--exercise", "ex4"]
    done = run_grader(args, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert f"the grader from {ROOT}, the course from {course_copy}" in done.stdout
    assert "warning" not in done.stderr  # the copy's stubs are the stubs
    checkout = tmp_path / "checkout.zip"
    assert run_grader(["gradescope-package", str(checkout), "--exercise", "ex4"]).returncode == 0
    with zipfile.ZipFile(ours) as zipped:
        names = set(zipped.namelist())
        assert zipped.read("pyproject.toml") == (ROOT / "pyproject.toml").read_bytes()
        assert zipped.read("course.yaml") == (course_copy / "course.yaml").read_bytes()
    assert {"grader/__init__.py", "grader/cli.py", "pyproject.toml", "README.md"} <= names
    assert "exercises/ex4-register-tiling/kernel.cu" in names and "reference/naive.cu" in names
    assert not any(n.startswith("solutions/") or "__pycache__" in n for n in names)
    with zipfile.ZipFile(checkout) as zipped:
        assert names == set(zipped.namelist())
    assert _grader_files(ours) == _grader_files(checkout)


def test_a_grader_without_its_pyproject_refuses_to_package_and_writes_nothing(
    course_copy: Path, tmp_path: Path
) -> None:
    """A grader installed from a wheel has no source to put in the package: one line, exit 2."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "grader", site / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "autograder.zip"
    done = subprocess.run(
        [sys.executable, "-m", "grader", "--course", str(course_copy), "gradescope-package",
         str(target)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"grader: error: the running grader ({site / 'grader'}) has no pyproject.toml beside it "
        "(installed from a wheel?), and the autograder package must hold the grader's source to "
        "install it: run gradescope-package with the grader of a checkout (CHECKOUT/bin/dev "
        "grader ..., or pip install -e CHECKOUT); nothing written"
    ]
    assert not target.exists() and done.stdout == ""


def test_the_package_warns_of_a_stub_that_is_its_solution(
    course_copy: Path, tmp_path: Path
) -> None:
    stub = course_copy / "exercises/ex1-non-square/kernel.cu"
    stub.write_bytes((course_copy / "solutions/ex1-non-square/kernel.cu").read_bytes())
    done = run_grader(["--course", str(course_copy), "gradescope-package", str(tmp_path / "a.zip")])
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        "warning: exercises/ex1-non-square/kernel.cu is the same as the solution: "
        "solutions/ex1-non-square/kernel.cu, byte for byte (overwritten?); the package ships "
        "the solution as the students' stub"
    )
    assert len(done.stderr.splitlines()) == 1  # the other stubs are the stubs
    assert (tmp_path / "a.zip").is_file()  # a warning, not a refusal


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_package_warns_where_the_stubs_differ_from_the_committed_ones(
    course_copy: Path, tmp_path: Path
) -> None:
    git = ["git", "-C", str(course_copy), "-c", "user.name=t", "-c", "user.email=t@t"]
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "commit.gpgsign=false", "commit", "-qm", "c"],
    ):
        subprocess.run([*git, *command], check=True, capture_output=True, timeout=60)
    args = ["--course", str(course_copy), "gradescope-package"]
    clean = run_grader([*args, str(tmp_path / "clean.zip")])
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    with (course_copy / "exercises/ex2-tile-sweep/kernel.cu").open("a") as stub:
        stub.write("// started on it\n")
    done = run_grader([*args, str(tmp_path / "changed.zip")])
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"warning: the stubs differ from the ones committed (git status -- exercises in "
        f"{course_copy}: M exercises/ex2-tile-sweep/kernel.cu); the package ships them as they "
        "are now: commit them, or restore them (git checkout -- exercises) and build the package "
        "again"
    ]


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


def test_a_course_folder_alone_releases_with_the_running_graders_source(
    course_copy: Path, tmp_path: Path
) -> None:
    assert not (course_copy / "grader").exists()  # the course's data only
    target = tmp_path / "student-copy"
    done = run_grader(["--course", str(course_copy), "release", str(target)])
    assert done.returncode == 0, done.stderr
    for part in ("grader/cli.py", "pyproject.toml", "bin/dev", "course.yaml"):
        assert (target / part).is_file(), part
    assert not (target / "solutions").exists()


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


def test_the_release_keeps_extensions_private_and_refuses_solutions_as_stubs(
    course_copy: Path, tmp_path: Path
) -> None:
    with (course_copy / "course.yaml").open("a") as course:
        course.write(
            "deadlines:\n"
            "  due: {ex1: 2026-10-01T23:59:00+00:00}\n"
            "  penalty_per_day: 0.25\n"
            "  extensions: {dave: {ex1: 48}}\n"
        )
    target = tmp_path / "student-copy"
    done = run_grader(["--course", str(course_copy), "release", str(target)])
    assert done.returncode == 0, done.stderr
    released = (target / "course.yaml").read_text()
    assert (
        "dave" not in released and "extensions:" not in released and "penalty_per_day" in released
    )
    assert run_grader(["--course", str(target), "list"]).returncode == 0  # still a course
    package = tmp_path / "autograder.zip"
    built = run_grader(["--course", str(course_copy), "gradescope-package", str(package)])
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(package) as zipped:
        assert "dave" not in zipped.read("course.yaml").decode()
    # a stub overwritten with its solution would hand students the answer
    solved = course_copy / "solutions/ex1-non-square/kernel.cu"
    (course_copy / "exercises/ex1-non-square/kernel.cu").write_bytes(solved.read_bytes())
    refused = run_grader(["--course", str(course_copy), "release", str(tmp_path / "again")])
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "exercises/ex1-non-square/kernel.cu is byte for byte its solution" in refused.stderr
    assert not (tmp_path / "again").exists()

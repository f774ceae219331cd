"""The Gradescope entry point as Gradescope runs it: as root, from the autograder package (no
solutions), in a container where bubblewrap may be missing or unable to start (Docker's default
seccomp profile refuses user namespaces). The student's program must run isolated in every case
(as the grading's own user, when bubblewrap cannot start) and the verdict must be the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_grader

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs the autograder as root"),
    pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ (the CPU backend)"),
]


@pytest.fixture(scope="module")
def autograder(small_course: Path) -> Iterator[Path]:
    """The package unpacked where the sandbox's user may reach it, as /autograder/source is (of
    the course with small largest cases: the container, not the kernel's size, is tested)."""
    root = Path(tempfile.mkdtemp(prefix="grader-test-autograder-", dir="/tmp"))
    package = root / "autograder.zip"
    command = ["--course", str(small_course), "gradescope-package", str(package)]
    done = run_grader([*command, "--exercise", "ex1"])
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(package) as zipped:
        zipped.extractall(root / "source")
    root.chmod(0o755)
    yield root / "source"
    shutil.rmtree(root, ignore_errors=True)


WAYS = {
    "bubblewrap": ([], {}),
    "no bubblewrap": ([], {"GRADER_BWRAP": "none"}),
    "user namespaces refused": ([sys.executable, "-m", "tests.docker_like"], {}),
}


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("kernel", ["solutions", "stub"])
def test_gradescope_grades_isolated_and_alike_in_every_container(
    autograder: Path, tmp_path: Path, way: str, kernel: str
) -> None:
    prefix, env = WAYS[way]
    submission = tmp_path / "submission"
    submission.mkdir()
    source = ROOT / ("solutions" if kernel == "solutions" else "exercises") / "ex1-non-square"
    shutil.copy(source / "kernel.cu", submission / "kernel.cu")
    results = tmp_path / "results" / "results.json"
    command = [sys.executable, "-m", "grader", "gradescope", "--exercise", "ex1"]
    command += ["--submission", str(submission), "--results", str(results)]
    done = subprocess.run(
        [*prefix, *command],
        cwd=autograder,
        env={
            **os.environ,
            **env,
            "PYTHONPATH": str(ROOT),  # tests.docker_like; the grader itself is the package's
            "GRADER_CACHE_DIR": str(tmp_path / "cache"),
        },
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(results.read_text())
    statuses = {t["name"]: t["status"] for t in data["tests"]}
    assert statuses["ex1: compile"] == "passed", data
    if kernel == "solutions":
        assert data["score"] == 100, json.dumps(data, indent=1)[:3000]
    else:  # the stub handles square matrices only: the others fail, each with its reason
        assert 10 <= data["score"] < 100 and statuses["ex1: correctness K = 1"] == "failed"
    assert all("isolation" not in t["output"] for t in data["tests"]), data


def test_a_batch_without_bubblewrap_grades_only_once_others_cannot_read_the_work(
    small_course: Path, tmp_path: Path
) -> None:
    # the students' programs run as a user of their own, who could read any submission others
    # can: the batch stops before grading anyone, saying what to chmod, then grades once it is
    shared = Path(tempfile.mkdtemp(prefix="grader-test-subs-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        submissions = shared / "submissions"
        (submissions / "alice").mkdir(parents=True)
        kernel = ROOT / "solutions/ex1-non-square/kernel.cu"
        shutil.copy(kernel, submissions / "alice" / "kernel.cu")
        course = shared / "course"  # the course as students have it: no solutions
        assert run_grader(["--course", str(small_course), "release", str(course)]).returncode == 0
        command = [sys.executable, "-m", "grader", "--course", str(course), "batch"]
        command += [str(submissions), "--exercise"]
        command += ["ex1", "--backend", "cpu", "--out"]
        env = {**os.environ, "GRADER_BWRAP": "none", "GRADER_CACHE_DIR": str(tmp_path / "c")}

        def batch(out: Path) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*command, str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                timeout=900, check=False,
            )  # fmt: skip

        refused = batch(tmp_path / "refused")
        assert refused.returncode == 2, refused.stderr
        last = refused.stderr.strip().splitlines()[-1]
        assert last == (
            f"grader: error: {submissions}: readable by any user, so by students' programs here "
            f"(no bubblewrap): chmod o-rwx {submissions} (or a folder above it) and grade again"
        )
        submissions.chmod(0o700)
        graded = batch(tmp_path / "graded")
        assert graded.returncode == 0, graded.stderr[-2000:]
        gradebook = (tmp_path / "graded" / "gradebook.csv").read_text()
        assert gradebook.splitlines()[1].startswith("alice,100"), gradebook
    finally:
        shutil.rmtree(shared, ignore_errors=True)

"""Which isolation grades native code here, failing closed: with none available nothing runs,
and without bubblewrap, solutions or a build cache that any user can read stop the grading
(the program, run as a user of its own, could read them), naming the path and the chmod."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_grader

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="the sandbox's own user needs root (CI and Gradescope run as root)"
)


def test_without_any_isolation_grading_native_code_fails_closed(tmp_path: Path) -> None:
    # not root and no bubblewrap: nothing can isolate the program, so nothing runs
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        os.environ["GRADER_BWRAP"] = "none"
        from grader.sandbox import identity
        identity.is_root = lambda: False
        from grader import sandbox
        from grader.errors import GraderError
        try:
            sandbox.mode()
        except GraderError as exc:
            print("refused:", exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.stdout.startswith("refused: no isolation for students' native code here"), (
        done.stdout + done.stderr
    )
    assert "--unsafe-no-sandbox" in done.stdout


@needs_root
def test_without_bubblewrap_solutions_or_a_cache_others_can_read_stop_the_grading(
    tmp_path: Path,
) -> None:
    # the program, run as its own user, would read them as any user can
    shared = Path(tempfile.mkdtemp(prefix="grader-test-open-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        private = shared / "private"
        private.mkdir(mode=0o700)
        script = textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(ROOT)!r})
            from grader import sandbox
            from grader.errors import GraderError
            try:
                print(sandbox.mode())
            except GraderError as exc:
                print("refused:", exc)
            """
        )
        outcomes = {}
        for name, hide, cache in (
            ("solutions open", shared, private),
            ("cache open", private, shared),
            ("both private", private, private),
        ):
            env = {**os.environ, "GRADER_BWRAP": "none", "GRADER_SANDBOX_HIDE": str(hide)}
            env["GRADER_CACHE_DIR"] = str(cache)
            done = subprocess.run(
                [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
            )
            outcomes[name] = done.stdout.strip()
        expected = f"refused: {shared}: readable by any user, so by students' programs here"
        assert outcomes["solutions open"].startswith(expected), outcomes
        assert outcomes["cache open"].startswith(expected), outcomes
        assert f"chmod o-rwx {shared}" in outcomes["cache open"]
        assert outcomes["both private"] == "user", outcomes
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture(params=["", "\u200d"], ids=["plain path", "path with a zero-width joiner"])
def open_course(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A copy of the course whose solutions any user can read, in a folder any user can search.
    Its path once had an invisible character, which reports escape: a check that matched the
    skip's message against the device's detail missed, and the stub PASSED again."""
    course = Path(tempfile.mkdtemp(prefix=f"grader-test-course-{request.param}", dir="/tmp"))
    try:
        course.chmod(0o755)
        shutil.copy(ROOT / "course.yaml", course / "course.yaml")
        for name in ("exercises", "solutions", "reference"):
            shutil.copytree(ROOT / name, course / name)
        (course / "solutions").chmod(0o755)
        (course / "cache").mkdir(mode=0o700)
        yield course
    finally:
        shutil.rmtree(course, ignore_errors=True)


def _without_bubblewrap(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADER_BWRAP": "none", "GRADER_CACHE_DIR": str(course / "cache")}
    env["CUDA_VISIBLE_DEVICES"] = ""  # auto: no GPU, so the CPU backend, as in CI
    env["PYTHONPATH"] = str(ROOT)
    env["COLUMNS"] = "400"  # rich tables unwrapped
    env.pop("GRADER_SANDBOX_HIDE", None)
    return run_grader(args, cwd=course, env=env)


@needs_root
@pytest.mark.slow
@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_a_course_whose_solutions_any_user_can_read_gives_no_verdict_without_bubblewrap(
    open_course: Path, backend: str
) -> None:
    # Found only at the first launch, this left every correctness check "to a GPU": the stub
    # got PASSED and exit status 0. The check must fail closed before any case, with the fix.
    done = _without_bubblewrap(open_course, "check", "ex1", "--backend", backend)
    solutions = str((open_course / "solutions").resolve()).replace("\u200d", "\\u200d")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "PASSED" not in done.stdout, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"{solutions}: readable by any user" in lines[0]
    assert f"chmod o-rwx {solutions}" in lines[0]


@needs_root
def test_doctor_says_the_sandbox_is_unusable_where_the_courses_solutions_are_open(
    open_course: Path,
) -> None:
    done = _without_bubblewrap(open_course, "doctor")
    row = " ".join(done.stdout.split())
    assert "sandbox (CPU backend) │ unavailable" in row, done.stdout
    assert "solutions: readable by any user" in row, done.stdout
    # and so nothing runs kernels here: `grader check` stops with that line
    assert "no kernel can run here" in row, done.stdout
    assert "run on the CPU backend" not in row, done.stdout

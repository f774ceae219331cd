"""The CLI as a user runs it: exit codes, one-line errors, JSON shape."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, gpu_unavailable_reason, run_grader


def test_list_shows_every_exercise() -> None:
    done = run_grader(["list"])
    assert done.returncode == 0
    assert "ex1" in done.stdout and "ex4-register-tiling" in done.stdout
    # ex2's cases as its README counts them: each case once per tile size of its sweep
    ex2 = next(line for line in done.stdout.splitlines() if "ex2-tile-sweep" in line)
    assert ex2.rstrip(" │|").split()[-1] == "18"


def test_backend_gpu_without_a_usable_gpu_exits_2_with_one_line_and_no_verdict() -> None:
    if gpu_unavailable_reason() is None:
        pytest.skip("this machine has a usable GPU")
    # a verdict from the checks that could run without it (compile alone) would "pass" a stub
    done = run_grader(["check", "ex1", "--json", "--seed", "5", "--backend", "gpu"])
    assert done.returncode == 2 and done.stdout == "", done.stdout
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("grader: error: --backend gpu: not usable here: no usable CUDA GPU")
    assert line.endswith("; --backend cpu runs the kernels on the CPU")


def test_a_compile_error_exits_1_and_names_the_line() -> None:
    done = run_grader(
        ["check", "ex1", "--json", "--file", "solutions/ex1-non-square/wrong/syntax_error.cu"]
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    compile_check = report["checks"][0]
    assert compile_check["status"] == "failed"
    assert compile_check["message"].startswith('syntax_error.cu:19: error: expected a ";"')
    assert report["passed"] is False and report["score"] == 0
    assert {c["status"] for c in report["checks"][1:]} == {"skipped"}


@pytest.mark.parametrize(
    ("answers", "hinted"),
    [("fastest_tile_size: [16\n", True), ("fastest_tile_size: 16\n", False)],
)
def test_a_compile_error_also_names_what_is_wrong_with_the_answers_file(
    tmp_path: Path, answers: str, hinted: bool
) -> None:
    # the answers are not graded where the kernel does not compile: one round of fixes for both
    kernel = tmp_path / "kernel.cu"
    kernel.write_bytes((ROOT / "solutions/ex1-non-square/wrong/syntax_error.cu").read_bytes())
    (tmp_path / "answers.yaml").write_text(answers)
    done = run_grader(["check", "ex2", "--json", "--file", str(kernel)])
    assert done.returncode == 1
    hints = json.loads(done.stdout)["hints"]
    said = [h for h in hints if h.startswith("answers.yaml:")]
    if hinted:
        assert said == [
            "answers.yaml:2:1: not valid YAML: expected ',' or ']', but got '<stream end>' "
            "(parsing a flow sequence that began at line 1, column 20) "
            "(the answers are graded once the kernel compiles: mend this too)"
        ]
    else:
        assert said == []


def test_the_terminal_report_shows_checks_seed_and_verdict() -> None:
    done = run_grader(
        [
            "check",
            "ex4",
            "--seed",
            "42",
            "--file",
            "solutions/ex1-non-square/wrong/misnamed_kernel.cu",
        ]
    )
    assert done.returncode == 1
    assert "seed 42" in done.stdout and "FAILED" in done.stdout
    assert "no __global__ function named 'matmul_tiled_2x2'" in done.stdout


def test_usage_errors_exit_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    for args, text in [
        (["check", "ex9"], "no exercise 'ex9'"),
        (["check", "ex1", "--seed", "x"], "--seed expects a whole number"),
        (["check", "ex1", "--file", str(tmp_path / "nope.cu")], "nope.cu: file not found"),
        (["frobnicate"], "invalid choice"),
    ]:
        done = run_grader(args)
        assert done.returncode == 2, args
        assert text in done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_broken_course_file_is_a_one_line_error(course_copy: Path) -> None:
    (course_copy / "course.yaml").write_text("title: x\nexercises:\n  - id: first\n")
    done = run_grader(["--course", str(course_copy), "list"])
    assert done.returncode == 2
    assert "course.yaml:3: exercises[0].id: expected an id like 'ex1', got 'first'" in done.stderr
    assert "Traceback" not in done.stderr


def test_python_dash_m_and_course_found_from_a_subdirectory() -> None:
    done = run_grader(["list"], cwd=ROOT / "exercises")
    assert done.returncode == 0 and "ex1-non-square" in done.stdout


def test_doctor_reports_nvrtc_the_gpu_and_the_cpu_backend() -> None:
    done = run_grader(["doctor"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NVRTC" in done.stdout and "GPU" in done.stdout and "CPU backend" in done.stdout
    assert "runtime checks (--backend auto) run on" in done.stdout
    # and how students' programs are isolated on the CPU backend
    assert "sandbox (CPU backend)" in done.stdout and "seccomp" in done.stdout


@pytest.mark.slow
def test_check_on_the_cpu_backend_grades_for_real_and_says_so(small_course: Path) -> None:
    wrong = small_course / "solutions/ex4-register-tiling/wrong/one_element_per_thread.cu"
    args = ["--course", str(small_course), "check", "ex4", "--json", "--backend", "cpu"]
    done = run_grader([*args, "--file", str(wrong)])
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["backend"] == "cpu" and "CPU emulation" in report["device"]
    # the small course's "square 1024" is 128 x 128: three elements of each 2 x 2 unwritten
    big = next(c for c in report["checks"] if c["name"] == "correctness square 1024")
    assert big["status"] == "failed"
    assert f"{128 * 128 * 3 // 4} never written" in big["message"]


@pytest.mark.slow
def test_a_solution_passes_on_the_cpu_backend_with_full_points(small_course: Path) -> None:
    solution = small_course / "solutions/ex4-register-tiling/kernel.cu"
    args = ["--course", str(small_course), "check", "ex4", "--json", "--backend", "cpu"]
    done = run_grader([*args, "--file", str(solution)])
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["passed"] and report["score"] == 80 and report["max_score"] == 100
    timing = report["checks"][-1]
    assert (timing["name"], timing["status"]) == ("performance", "skipped")
    assert timing["message"].startswith("needs a GPU")


def test_the_readme_s_way_to_put_grader_on_the_path_works() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "source .venv/bin/activate" in readme
    if not (ROOT / ".venv/bin/activate").is_file():
        pytest.skip("no .venv here: the grader was installed another way")
    done = subprocess.run(
        ["bash", "-c", "source .venv/bin/activate && grader list"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "ex1" in done.stdout, done.stderr


def test_exitfirst_stops_at_the_first_failed_check_and_says_why_the_rest_did_not_run(
    small_course: Path,
) -> None:
    wrong = str(small_course / "solutions/ex1-non-square/wrong/floor_tiles.cu")
    args = ["--course", str(small_course), "check", "ex1", "--json", "--backend", "cpu"]
    stopped = run_grader([*args, "-x", "--seed", "3", "--file", wrong])
    assert stopped.returncode == 1, stopped.stderr
    checks = json.loads(stopped.stdout)["checks"]
    statuses = [c["status"] for c in checks]
    first = statuses.index("failed")
    assert statuses[:first] == ["passed"] * first
    rest = checks[first + 1 :]
    assert rest and all(c["status"] == "skipped" for c in rest)
    assert {c["message"] for c in rest} == {"not run: stopped at the first failure (-x)"}
    whole = json.loads(run_grader([*args, "--seed", "3", "--file", wrong]).stdout)["checks"]
    assert [(c["name"], c["status"], c["message"]) for c in whole[: first + 1]] == [
        (c["name"], c["status"], c["message"]) for c in checks[: first + 1]
    ]
    assert any(c["status"] != "skipped" for c in whole[first + 1 :])  # without -x, all run


def test_on_a_terminal_a_status_line_says_which_check_runs(small_course: Path) -> None:
    import os
    import pty
    import sys

    main, terminal = pty.openpty()
    args = ["--course", str(small_course), "check", "ex1", "--backend", "cpu", "--seed", "1"]
    file = str(small_course / "solutions/ex1-non-square/kernel.cu")
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", *args, "--file", file],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=env,
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        seen += chunk
    out, _ = process.communicate(timeout=300)
    os.close(main)
    assert process.returncode == 0
    assert b"ex1: correctness" in seen  # the check running, as it ran
    assert b"ex1: correctness" not in out  # stdout holds the report alone


@pytest.mark.slow
def test_check_all_grades_every_exercise_and_ends_with_one_summary(small_course: Path) -> None:
    args = ["--course", str(small_course), "check", "--all", "--backend", "cpu", "-x"]  # quicker
    done = run_grader(args)
    assert done.returncode == 1, done.stderr  # the stubs are not yet right
    summary = done.stdout.split("every exercise", 1)[1]
    for exercise in ("ex1: Non-square matrices", "ex2: Tile-size sweep", "ex4: 2x2 register"):
        assert exercise in summary
    assert "total" in summary and "/400" in summary
    as_json = run_grader([*args, "-k", "compile", "--json"])  # the JSON's shape; compiling will do
    assert [r["exercise"] for r in json.loads(as_json.stdout)] == ["ex1", "ex2", "ex3", "ex4"]


def test_check_needs_an_exercise_or_all_but_not_both() -> None:
    for args in (["check"], ["check", "ex1", "--all"]):
        done = run_grader(args)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "give one exercise (e.g. ex4), or --all" in done.stderr


def test_check_all_says_at_once_which_kernel_is_missing(course_copy: Path) -> None:
    (course_copy / "exercises/ex4-register-tiling/kernel.cu").unlink()
    done = run_grader(["--course", str(course_copy), "check", "--all", "--backend", "cpu"])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ex4-register-tiling/kernel.cu not found (1 exercise(s) without a kernel.cu)" in (
        done.stderr
    )
    assert done.stdout == ""  # nothing graded first


def test_verbose_shows_the_message_of_checks_that_passed(small_course: Path) -> None:
    kernel = str(small_course / "solutions/ex1-non-square/kernel.cu")
    args = ["--course", str(small_course), "check", "ex1", "--backend", "cpu", "--file", kernel]
    quiet, loud = run_grader(args), run_grader([*args, "-v"])
    assert quiet.returncode == loud.returncode == 0
    assert "compile: PASS" not in quiet.stdout and "compile: PASS" in loud.stdout


def test_k_runs_only_the_checks_it_selects_and_names_the_rest_deselected(
    small_course: Path,
) -> None:
    kernel = str(small_course / "solutions/ex1-non-square/kernel.cu")
    args = ["--course", str(small_course), "check", "ex1", "--backend", "cpu", "--json"]
    done = run_grader([*args, "--file", kernel, "-k", "square and not 1024"])
    assert done.returncode == 0, done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["compile"]["status"] == "passed"  # always runs: nothing runs without it
    assert checks["correctness square 64"]["status"] == "passed"
    others = [c for n, c in checks.items() if n not in ("compile", "correctness square 64")]
    assert others and all(c["status"] == "skipped" for c in others)
    assert {c["message"] for c in others} == {"not run: deselected by -k 'square and not 1024'"}
    # a part of the grading passing is not the exercise passing
    table = run_grader([*args[:-1], "--file", kernel, "-k", "square and not 1024"])
    assert "PASSED (the checks -k selected)" in table.stdout, table.stdout
    bad = run_grader([*args, "--file", kernel, "-k", "square and"])
    assert bad.returncode == 2 and bad.stderr.startswith("grader: error: -k 'square and'")
    none = run_grader([*args, "--file", kernel, "-k", "nomatch"])
    assert none.returncode == 2 and "Traceback" not in none.stderr
    assert "-k 'nomatch' selects no check; the checks are: compile, correctness " in none.stderr


def test_paths_that_cannot_be_used_are_one_line_without_a_traceback(tmp_path: Path) -> None:
    # found by the eighth walk: each printed a traceback
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    for args, said in (
        (["batch", "exercises", "--out", str(afile), "--exercise", "ex1"], f"{afile}: file exists"),
        (
            ["gradescope-package", str(tmp_path / "nodir" / "ag.zip"), "--exercise", "ex4"],
            "ag.zip: no such file or directory",
        ),
    ):
        done = run_grader(args)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert said in done.stderr
    assert afile.read_text() == "mine\n"

"""On a real GPU: solutions pass, stubs and every known-wrong variant fail for their reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.course import load_course
from grader.grading import default_answers, grade
from grader.source import KernelSource, read_source
from tests.conftest import ROOT, run_grader

pytestmark = pytest.mark.gpu
COURSE = load_course(ROOT)


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.id)
def test_the_solution_passes_every_check(exercise) -> None:  # type: ignore[no-untyped-def]
    answers = default_answers(exercise, exercise.solution)
    report = grade(exercise, read_source(exercise.solution), answers=answers)
    assert report.device.backend == "gpu"
    # every check passed but a written answer, which waits for a person (grader review)
    expected = ["pending" if c.name == "answers explanation" else "passed" for c in report.checks]
    assert [c.status for c in report.checks] == expected, report.to_json()
    assert report.score + report.pending == report.max_score


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.id)
def test_the_stub_compiles_but_fails_correctness(exercise) -> None:  # type: ignore[no-untyped-def]
    # with the answers template shipped beside it, where the exercise asks questions
    report = grade(
        exercise, read_source(exercise.stub), answers=default_answers(exercise, exercise.stub)
    )
    assert report.checks[0].status == "passed"
    failed = [c for c in report.checks if c.status == "failed"]
    assert any(c.kind == "correctness" for c in failed)
    assert all(c.kind in ("correctness", "answers") for c in failed)
    wrong = [c for c in failed if c.kind == "correctness"]
    assert all("elements wrong" in c.message or "GPU" in c.message for c in wrong)


def test_validate_proves_every_verdict() -> None:
    done = run_grader(["validate", "--json"])
    result = json.loads(done.stdout)
    not_ok = [i for i in result["items"] if i["verdict"] != "ok"]
    assert not_ok == [], not_ok
    assert done.returncode == 0


def test_the_same_seed_gives_the_same_report() -> None:
    exercise = COURSE.find("ex1")
    variant = read_source(exercise.solution_directory / "wrong/floor_tiles.cu")
    first = grade(exercise, variant, seed=99)
    second = grade(exercise, variant, seed=99)
    assert [c.message for c in first.checks] == [c.message for c in second.checks]
    assert first.hints == second.hints and first.hints


def test_one_element_per_thread_under_the_2x2_launch_leaves_c_unwritten() -> None:
    exercise = COURSE.find("ex4")
    report = grade(exercise, read_source(exercise.stub), seed=3)
    big = next(c for c in report.checks if c.name == "correctness square 1024")
    assert big.status == "failed"
    assert "786432 never written" in big.message


def test_the_performance_check_times_against_the_baseline_and_keeps_the_json(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "bench.json"
    done = run_grader(
        [
            "check",
            "ex4",
            "--json",
            "--backend",
            "gpu",
            "--benchmark-json",
            str(kept),
            "--file",
            "solutions/ex4-register-tiling/kernel.cu",
        ]
    )
    report = json.loads(done.stdout)
    timing = report["checks"][-1]
    assert timing["name"] == "performance" and timing["status"] == "passed", timing["message"]
    assert timing["figures"]["speedup"] > 1.5
    assert "x the baseline" in timing["message"] and "cuBLAS FP32" in timing["message"]
    data = json.loads(kept.read_text())
    assert data["grader_machine"]["gpu"] == report["device"].split(" (")[0]
    names = [b["name"] for b in data["benchmarks"]]
    assert names[0] == "test_gemm[0-baseline]" and names[1] == "test_gemm[0-student]"


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("work_first_launches", "elements of C wrong"),
        ("skip_large", "elements of C wrong"),
        ("keeps_result", "elements of C wrong"),
        ("skip_some_terms_when_large", "elements of C wrong"),
        ("tf32_when_large", "less accurate than float32"),
        ("zeroes_inputs_when_large", "wrote into its inputs"),
    ],
)
def test_kernels_that_cut_corners_when_timed_fail_the_performance_check(
    variant: str, words: str
) -> None:
    exercise = COURSE.find("ex4")
    report = grade(exercise, read_source(exercise.solution_directory / f"wrong/{variant}.cu"))
    timing = report.checks[-1]
    assert timing.status == "failed"
    assert "timed launches" in timing.message and words in timing.message, timing.message


def test_a_kernel_that_faults_only_when_timed_fails_the_performance_check() -> None:
    # the timing loop queues its launches without waiting: the fault is reported by a later
    # call (the next launch, cuBLAS, a read), and still counts as the kernel's
    exercise = COURSE.find("ex4")
    text = (exercise.solution_directory / "wrong/skip_large.cu").read_text()
    skips = "if ((long long)M * N > 2LL * 1024 * 1024) return;"
    assert skips in text
    faults = "if ((long long)M * N > 2LL * 1024 * 1024) C[1LL << 40] = 1.0f;"
    report = grade(exercise, KernelSource(text.replace(skips, faults), "kernel.cu"))
    timing = report.checks[-1]
    assert all(c.status == "passed" for c in report.checks[:-1])
    assert timing.status == "failed"
    assert timing.message.startswith("the kernel failed on the GPU while timed"), timing.message


def test_the_device_comparison_agrees_with_the_host_one() -> None:
    import cupy as cp
    import numpy as np

    from grader.backends.gpu.comparison import DeviceComparison
    from grader.backends.host_comparison import compare_on_host
    from grader.backends.timed_gemm import ErrorBound

    rng = np.random.default_rng(3)
    host_a = rng.uniform(-1, 1, (300, 700)).astype(np.float32)
    host_b = rng.uniform(-1, 1, (700, 500)).astype(np.float32)
    right = host_a @ host_b
    off = right.copy()
    off[7, 9] += 0.5
    off[100, 3] = np.nan
    arch = f"sm_{cp.cuda.Device().compute_capability}"
    device = DeviceComparison(cp, (300, 700, 500), arch)
    bound = ErrorBound(2.0 * 700 * 2.0**-24, 700 * 2.0**-100)  # as the launch check's
    drawn = (host_a.copy(), host_b.copy())
    device_drawn = (cp.asarray(host_a), cp.asarray(host_b))
    given, device_given = (host_a, host_b), (cp.asarray(host_a), cp.asarray(host_b))
    for output in (right, off):
        on_gpu = device.compare(device_given, device_drawn, cp.asarray(output), bound)
        on_cpu = compare_on_host(given, drawn, output, bound)
        assert on_gpu.wrong == on_cpu.wrong
        if np.isfinite(on_cpu.squared_error):
            assert on_gpu.squared_error == pytest.approx(on_cpu.squared_error, rel=1e-6)
        else:
            assert not np.isfinite(on_gpu.squared_error)  # NaN in C: no relative error
        assert on_gpu.squared_reference == pytest.approx(on_cpu.squared_reference, rel=1e-6)
    assert device.compare(device_given, device_drawn, cp.asarray(off), bound).wrong == 2
    device_given[0][0, 0] += 1.0  # as a kernel that writes into its inputs
    host_a[0, 0] += 1.0
    assert device.compare(device_given, device_drawn, cp.asarray(right), bound).inputs_changed == 1
    assert compare_on_host(given, drawn, right, bound).inputs_changed == 1


def test_a_correct_but_slow_kernel_fails_with_its_figures() -> None:
    exercise = COURSE.find("ex4")
    report = grade(exercise, read_source(exercise.solution_directory / "wrong/slow_correct.cu"))
    timing = report.checks[-1]
    assert all(c.status == "passed" for c in report.checks[:-1])
    assert timing.status == "failed"
    assert timing.message.startswith("too slow: ")
    assert timing.figures["speedup"] < timing.figures["min_speedup"]


def test_a_recycled_gpu_backend_leaves_nothing_of_the_last_submission_readable() -> None:
    from grader.backends.gpu import GpuBackend
    from grader.backends.gpu.runtime import import_cupy

    cp = import_cupy()
    backend = GpuBackend()
    marked = cp.full(1 << 24, 12345.0, dtype=cp.float32)  # the last submission's data
    del marked
    assert backend.recycle()
    for size in (1 << 24, 1 << 26):  # the same size (the pool's old block), and more
        fresh = cp.empty(size, dtype=cp.float32)
        assert not bool((fresh == 12345.0).any())
        assert bool(cp.isnan(fresh).all())  # poison, where nothing was written yet
        del fresh
    kept = cp.zeros(16, dtype=cp.float32)  # a buffer still in use: the child must not go on
    assert not backend.recycle()
    del kept


def test_a_gpu_backend_that_ran_a_kernel_using_the_device_heap_is_not_reused(
    tmp_path: Path,
) -> None:
    from grader.backends.compiler import CompiledKernel, compile_kernel
    from grader.backends.gpu import GpuBackend
    from grader.source import KernelSource

    text = (
        'extern "C" __global__ void k(float *out) {\n'
        "    float *kept = (float *)malloc(64); kept[0] = 1.0f; out[0] = kept[0];\n}\n"
    )
    backend = GpuBackend()
    assert backend.recycle()  # nothing used yet
    compiled = compile_kernel(KernelSource(text, "kernel.cu"), "k", {}, backend.arch)
    assert isinstance(compiled, CompiledKernel)
    backend.load_function(compiled)
    assert not backend.recycle()  # its heap is the context's: a fresh process grades next


def test_a_gpu_lane_serves_submission_after_submission_with_checks_verdicts(
    tmp_path: Path,
) -> None:
    solution = (ROOT / "solutions/ex4-register-tiling/kernel.cu").read_text()
    head, body = solution.split("__global__", 1)  # a store to an unmapped address, first thing
    crash = head + "__global__" + body.replace("{", "{ *((volatile float*)8ull) = 1.0f;", 1)
    wrong = (ROOT / "solutions/ex4-register-tiling/wrong/no_edge_guards.cu").read_text()
    kernels = {"s1": solution, "s2": wrong, "s3": solution, "s4": crash, "s5": solution}
    submissions = tmp_path / "submissions"
    for student, text in kernels.items():
        (submissions / student).mkdir(parents=True)
        (submissions / student / "kernel.cu").write_text(text)
    out = tmp_path / "out"
    args = ["batch", str(submissions), "--out", str(out), "--exercise", "ex4", "--seed", "5"]
    done = run_grader([*args, "--backend", "gpu", "--gpus", "0", "--jobs", "1"])
    assert done.returncode == 0, done.stderr
    for student in kernels:
        batch = json.loads((out / f"feedback/{student}.json").read_text())[0]
        seed = _seed(out, student)
        alone = json.loads(
            run_grader(
                [
                    "check",
                    "ex4",
                    "--json",
                    "--backend",
                    "gpu",
                    "--seed",
                    str(seed),
                    "--file",
                    str(submissions / student / "kernel.cu"),
                ]
            ).stdout
        )
        assert [(c["name"], c["status"]) for c in batch["checks"]] == [
            (c["name"], c["status"]) for c in alone["checks"]
        ], student
    # the lane timed after every correctness part (the crash in s4 among them, which ended its
    # child): the solutions s1, s3 and s5, in one child, kept from the first timed to the last
    log = (out / "lanes/gpu0/timing.log").read_text().splitlines()
    timed = [line.split()[1] for line in log]
    assert len(set(timed)) == 1 and len(timed) == 6, log  # a start and an end line each


def _seed(out: Path, student: str) -> int:
    import sqlite3

    with sqlite3.connect(out / "results.sqlite") as db:
        query = "SELECT report_json FROM results WHERE student = ?"
        (text,) = db.execute(query, (student,)).fetchone()
    return int(json.loads(text)["seed"])

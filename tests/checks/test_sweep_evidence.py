"""ex2's 'what stops a tile size of 64' is graded against the course's own tiled kernel built and
launched at 64, never the student's file: a kernel that fails on purpose at 64 alone (an #error
naming shared memory) cannot make its own answer right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.backends.compiler import CompileFailure
from grader.checks.sweep import REFERENCE, probe, reference_kernel
from grader.source import KernelSource
from grader.spec import load_spec
from tests.conftest import ROOT, run_grader

SPEC = load_spec(ROOT / "exercises/ex2-tile-sweep/spec.yaml")
SOLUTION = ROOT / "solutions/ex2-tile-sweep"
SABOTAGE = "#if TILE_SIZE == 64\n#error too much shared memory for this block\n#endif\n"
EVIDENCE = (
    "the course's tiled kernel at TILE_SIZE=64: 4096 threads per block, over the limit of 1024"
)
ON_THE_CPU = "(by the limits of every current CUDA GPU)"


def test_the_evidence_is_the_course_kernel_s_threads_per_block() -> None:
    limit, detail, _ = probe(SPEC, reference_kernel(ROOT), "sm_90")
    assert limit == "threads_per_block"
    assert detail == EVIDENCE


def test_a_student_s_sabotaged_build_would_have_told_another_limit() -> None:
    # what the probe said when it built the student's file: why it must not
    sabotaged = KernelSource(SABOTAGE + (SOLUTION / "kernel.cu").read_text(), "kernel.cu")
    limit, _, compiled = probe(SPEC, sabotaged, "sm_90")
    assert isinstance(compiled, CompileFailure) and limit == "shared_memory_per_block"


def test_a_course_without_its_reference_kernel_grades_no_limit(tmp_path: Path) -> None:
    kernel = reference_kernel(tmp_path)
    assert isinstance(kernel, str) and REFERENCE in kernel
    limit, detail, compiled = probe(SPEC, kernel, "sm_90")
    assert limit is None and detail == kernel and isinstance(compiled, CompileFailure)


def _grade_sabotaged(course: Path, tmp_path: Path, limit_answer: str) -> dict[str, object]:
    (tmp_path / "kernel.cu").write_text(SABOTAGE + (SOLUTION / "kernel.cu").read_text())
    answers = (SOLUTION / "answers.yaml").read_text()
    (tmp_path / "answers.yaml").write_text(
        answers.replace("limit_64: threads_per_block", f"limit_64: {limit_answer}")
    )
    args = ["--course", str(course), "check", "ex2", "--json", "--backend", "cpu"]
    done = run_grader([*args, "--file", str(tmp_path / "kernel.cu")])
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    # every graded build (8, 16, 32) is untouched: the kernel passes its correctness checks
    assert all(c["status"] == "passed" for c in checks.values() if c["kind"] == "correctness")
    result: dict[str, object] = checks["answers limit of 64"]
    return result


@pytest.mark.slow
def test_a_kernel_failing_only_at_64_cannot_make_its_answer_right(
    small_course: Path, tmp_path: Path
) -> None:
    result = _grade_sabotaged(small_course, tmp_path, "shared_memory_per_block")
    assert result["status"] == "failed"
    assert result["message"] == (
        f"yours shared_memory_per_block; the grader's launch: {EVIDENCE} {ON_THE_CPU}"
    )


@pytest.mark.slow
def test_a_kernel_failing_only_at_64_still_has_the_right_answer_graded_right(
    small_course: Path, tmp_path: Path
) -> None:
    result = _grade_sabotaged(small_course, tmp_path, "threads_per_block")
    assert result["status"] == "passed"
    assert (
        result["message"]
        == f"yours threads_per_block; the grader's launch: {EVIDENCE} {ON_THE_CPU}"
    )

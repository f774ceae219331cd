from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import GraderError
from grader.expectations import judge_acceptance, judge_rejection, read_header
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import ROOT


def _report(*checks: tuple[str, str, str], hints: tuple[str, ...] = ()) -> Report:
    results = [CheckResult(n, "correctness", s, 0, 1, m) for n, s, m in checks]  # type: ignore[arg-type]
    return Report("ex1", "t", "k.cu", 1, DeviceInfo("gpu", "x"), results, list(hints))


def test_every_known_wrong_variant_declares_why_and_what_catches_it() -> None:
    variants = sorted((ROOT / "solutions").glob("*/wrong/*.cu"))
    assert len(variants) >= 15
    for variant in variants:
        header = read_header(variant)
        assert header.why and header.expectations


def test_a_variant_without_header_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "v.cu"
    path.write_text("__global__ void k() {}\n")
    with pytest.raises(GraderError, match="needs a '// WRONG: why' line"):
        read_header(path)


def test_rejection_must_be_for_the_declared_reason(tmp_path: Path) -> None:
    path = tmp_path / "v.cu"
    path.write_text('// WRONG: races\n// expect: correctness "race"\n')
    header = read_header(path)
    assert judge_rejection(_report(("c", "failed", "threads race")), header)[0] == "ok"
    verdict, detail = judge_rejection(_report(("c", "failed", "indexing")), header)
    assert verdict == "wrong" and "not for the declared reason" in detail
    assert judge_rejection(_report(("c", "failed", "x"), hints=("a RACE",)), header)[0] == "ok"
    assert judge_rejection(_report(("c", "passed", "")), header)[0] == "wrong"
    assert judge_rejection(_report(("c", "skipped", "no GPU")), header)[0] == "inconclusive"


def test_a_solution_must_pass_every_check_none_skipped() -> None:
    assert judge_acceptance(_report(("c", "passed", "")))[0] == "ok"
    assert judge_acceptance(_report(("c", "passed", ""), ("d", "skipped", "")))[0] == "inconclusive"
    assert judge_acceptance(_report(("c", "failed", "bad")))[0] == "wrong"


def test_timing_only_variants_need_a_gpu_to_be_judged(tmp_path: Path) -> None:
    path = tmp_path / "v.cu"
    path.write_text('// WRONG: skips work when timed\n// expect: performance "wrong on"\n')
    header = read_header(path)
    results = [
        CheckResult("correctness x", "correctness", "passed", 1, 1, ""),
        CheckResult("performance", "performance", "skipped", 0, 1, "needs a GPU"),
    ]
    on_cpu = Report("ex4", "t", "k.cu", 1, DeviceInfo("cpu", "CPU emulation"), results)
    assert judge_rejection(on_cpu, header)[0] == "needs a GPU"
    assert judge_acceptance(on_cpu)[0] == "ok"
    on_gpu = Report("ex4", "t", "k.cu", 1, DeviceInfo("gpu", "H200"), results)
    assert judge_rejection(on_gpu, header)[0] == "inconclusive"

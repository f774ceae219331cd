"""Threshold choice and scoring of the performance check (the timing itself runs on a GPU)."""

from __future__ import annotations

import pytest

from grader.checks.performance import choose_threshold, grade_speedup
from grader.spec import PerformanceSpec, ThresholdSpec, load_spec
from tests.conftest import ROOT

PERF = load_spec(ROOT / "exercises/ex4-register-tiling/spec.yaml").performance


def _spec(**gpus: ThresholdSpec) -> PerformanceSpec:
    assert PERF is not None
    return PERF.model_copy(update={"gpus": gpus})


def test_a_gpu_listed_by_name_gets_its_calibrated_threshold() -> None:
    spec = _spec(**{"NVIDIA H200": ThresholdSpec(min_speedup=1.7, target_speedup=1.85)})
    chosen = choose_threshold(spec, "NVIDIA H200", "sm_90")
    assert chosen.spec.min_speedup == 1.7
    assert chosen.why == "calibrated for NVIDIA H200"


def test_an_architecture_entry_applies_to_unlisted_gpus_of_it() -> None:
    spec = _spec(sm_90=ThresholdSpec(min_speedup=1.6))
    chosen = choose_threshold(spec, "NVIDIA H100 80GB HBM3", "sm_90")
    assert (chosen.spec.min_speedup, chosen.why) == (1.6, "set for sm_90")


def test_an_unknown_gpu_gets_the_default_and_the_report_says_why() -> None:
    chosen = choose_threshold(_spec(), "NVIDIA GeForce RTX 3090", "sm_86")
    assert chosen.spec == _spec().default
    assert "no threshold recorded for NVIDIA GeForce RTX 3090" in chosen.why


@pytest.mark.parametrize(
    ("speedup", "expected"),
    [
        (1.2, ("failed", 0.0)),
        (1.7, ("passed", 0.0)),
        (1.775, ("passed", 10.0)),
        (1.9, ("passed", 20.0)),
    ],
)
def test_partial_credit_is_linear_between_min_and_target(
    speedup: float, expected: tuple[str, float]
) -> None:
    threshold = ThresholdSpec(min_speedup=1.7, target_speedup=1.85)
    assert grade_speedup(speedup, threshold, 20.0) == expected


def test_without_a_target_reaching_the_minimum_earns_every_point() -> None:
    assert grade_speedup(1.31, ThresholdSpec(min_speedup=1.3), 20.0) == ("passed", 20.0)


def test_a_target_below_the_minimum_is_a_spec_error() -> None:
    with pytest.raises(ValueError, match="target_speedup must be above min_speedup"):
        ThresholdSpec(min_speedup=1.8, target_speedup=1.5)

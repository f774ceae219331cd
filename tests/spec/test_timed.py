"""The timed parts of a spec: thresholds in order, sweep values a block can hold."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from grader.spec import SweepSpec, ThresholdSpec


def test_a_target_at_or_under_the_minimum_is_refused() -> None:
    with pytest.raises(ValidationError, match="target_speedup must be above min_speedup"):
        ThresholdSpec(min_speedup=1.5, target_speedup=1.5)


@pytest.mark.parametrize(
    ("values", "why"), [([8, 64], "between 1 and 32"), ([16, 16], "values must differ")]
)
def test_sweep_values_must_fit_a_block_and_differ(values: list[int], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        SweepSpec(define="TILE_SIZE", values=values, shape="64x64x64", points=10)

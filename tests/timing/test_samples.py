"""The figures drawn from the timed samples, by pytest-benchmark's Stats."""

from __future__ import annotations

import math
import statistics

from grader.timing.samples import (
    Block,
    all_launches,
    block_ratios,
    relative_standard_error,
    stats_of,
)


def _blocks() -> list[Block]:
    times = {
        "baseline": [[2.0, 2.2, 2.1], [2.3, 2.0, 2.1], [2.2, 2.2, 2.0]],
        "student": [[1.0, 1.1, 1.0], [1.2, 1.0, 1.1], [1.0, 1.0, 1.1]],
    }
    return [Block(i, label, stats_of(times[label][i])) for i in range(3) for label in times]


def test_medians_are_over_every_launch_of_a_kernel() -> None:
    stats = all_launches(_blocks(), "student")
    assert stats.rounds == 9
    assert stats.median == 1.0  # five of nine launches at 1.0
    assert all_launches(_blocks(), "baseline").median == 2.1


def test_the_noise_of_a_ratio_is_the_standard_error_of_its_block_ratios() -> None:
    ratios = block_ratios(_blocks(), ("baseline", "student"))
    assert ratios == [2.1 / 1.0, 2.1 / 1.1, 2.2 / 1.0]
    expected = statistics.stdev(ratios) / math.sqrt(3) / statistics.mean(ratios)
    assert math.isclose(relative_standard_error(ratios), expected)
    assert relative_standard_error(ratios[:1]) == math.inf  # no spread from one block

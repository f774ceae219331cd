"""The timed samples, block by block, and the figures drawn from them with pytest-benchmark's
Stats: medians per kernel, and the noise of a ratio of two kernels' times, measured from the
spread of their blocks (robustly: one block apart from the rest is not noise)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_benchmark.stats import Stats

_new_stats: Callable[[], Any] = Stats
"""pytest-benchmark's Stats (untyped): its figures are properties of the samples it holds."""


@dataclass(frozen=True)
class Block:
    """One block: consecutive timed launches of one kernel (seconds each, in `stats.data`)."""

    index: int
    label: str
    stats: Any
    """pytest_benchmark.stats.Stats of the block's launches."""


def stats_of(values: list[float]) -> Any:
    """pytest-benchmark's Stats over `values`."""
    stats = _new_stats()
    for value in values:
        stats.update(value)
    return stats


def all_launches(blocks: list[Block], label: str) -> Any:
    """Stats over every timed launch of `label`, all blocks together."""
    return stats_of([t for block in blocks if block.label == label for t in block.stats.data])


def block_ratios(blocks: list[Block], ratio: tuple[str, str]) -> list[float]:
    """Block by block, the median of the first kernel over the median of the second."""
    over = [b.stats.median for b in blocks if b.label == ratio[0]]
    under = [b.stats.median for b in blocks if b.label == ratio[1]]
    return [float(a / b) for a, b in zip(over, under, strict=False)]


MAD_TO_SIGMA = 1.4826
"""The median absolute deviation times this estimates a standard deviation (normal samples)."""


def relative_standard_error(ratios: list[float]) -> float:
    """The noise of the ratio, from the spread of the blocks: the standard error of the median
    block ratio, relative to it, with the spread taken from their median absolute deviation. One
    block that ran apart from the rest neither counts as noise nor keeps the loop going: on the
    H100, the first block after a batch's first timed grading had allocated its buffers ran 10 %
    apart, and with the standard deviation as the spread that one block kept the loop going for
    36 to 252 blocks (2 to 9 s) before the error fell below 0.3 % (infinite while there are
    fewer than two blocks)."""
    if len(ratios) < 2:
        return math.inf
    middle = statistics.median(ratios)
    spread = MAD_TO_SIGMA * statistics.median(abs(r - middle) for r in ratios)
    return float(spread / len(ratios) ** 0.5 / middle)

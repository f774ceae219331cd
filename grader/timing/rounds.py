"""The timing loop: blocks of launches of every kernel in turn (A B A B ...), so that drift in
clocks or temperature falls on all alike, until the ratio of two of them is known well enough or
the time cap is reached. Before every launch, outside the timed region: fresh inputs, the
output poisoned, the L2 flush; after it, the output's check, then the poison again.

All of it is queued on the device, and read back once per batch of blocks (the stopping rule
needs no figure before): the host never waits between launches, so the device runs them back to
back, and the host's own delays (other gradings' work beside it, a loaded machine) pass while the
device is busy with the launches queued before, not between them."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from grader.backends.timed_gemm import TimedGemm
from grader.timing.samples import (
    Block,
    all_launches,
    block_ratios,
    relative_standard_error,
    stats_of,
)

Finding = Callable[[], str | None]
"""Reads a queued check's finding (waiting for it): what is wrong with the output, or None."""
Verify = Callable[[str], Finding]
"""Given a kernel's label after its launch: queues the check of its output."""


@dataclass(frozen=True)
class TimingPlan:
    labels: list[str]
    """The kernels, in the order each block of the loop runs them."""
    rounds: int
    """Timed launches of one kernel in a block (the first block adds an untimed warm-up)."""
    min_blocks: int
    """Blocks of every kernel at least."""
    rse_target: float
    """Stop once the relative standard error of `ratio` is at most this."""
    time_cap_s: float
    """Or once the loop has run this long (checked between batches of blocks)."""
    ratio: tuple[str, str]
    """The two kernels whose ratio of times is measured: (over, under)."""
    poison_bits: int
    """What outputs are filled with before and after every launch."""


@dataclass(frozen=True)
class BadLaunch:
    """A launch whose output was wrong."""

    label: str
    launch_number: int
    """Counting every launch of that kernel, warm-up included, from 1."""
    problem: str

    def describe(self) -> str:
        return self.problem


@dataclass(frozen=True)
class Timing:
    """What the interleaved measurement found."""

    samples: list[Block]
    """Every block, in the order run."""
    medians: dict[str, float]
    """Median seconds per launch, over every timed launch of each kernel."""
    speedup: float
    """The plan's ratio: the first kernel's median over the second's."""
    relative_standard_error: float
    blocks: int
    """Blocks of each kernel."""
    bad: list[BadLaunch]
    launches: dict[str, int]
    """Launches of each kernel, warm-up included."""


@dataclass(frozen=True)
class _Queued:
    """One launch queued on the device: what reads its time, and its check's finding."""

    number: int
    seconds: Callable[[], float]
    finding: Finding | None


@dataclass
class _Loop:
    gemm: TimedGemm
    plan: TimingPlan
    verify: Mapping[str, Verify]
    samples: list[Block] = field(default_factory=list)
    launches: dict[str, int] = field(default_factory=dict)
    bad: list[BadLaunch] = field(default_factory=list)
    queued: list[tuple[int, str, list[_Queued], int]] = field(default_factory=list)
    """The blocks queued since the last read: (index, label, launches, how many are warm-ups)."""

    def launch(self, label: str) -> _Queued:
        gemm = self.gemm
        gemm.renew_inputs()
        gemm.poison_output(label, self.plan.poison_bits)
        gemm.flush_l2()
        enabled = gc.isenabled()
        gc.disable()
        try:
            seconds = gemm.queue_launch(label)
        finally:
            if enabled:
                gc.enable()
        number = self.launches.get(label, 0) + 1
        self.launches[label] = number
        check = self.verify.get(label)
        finding = check(label) if check is not None else None
        gemm.poison_output(label, self.plan.poison_bits)
        return _Queued(number, seconds, finding)

    def block(self, index: int, label: str) -> None:
        warm_ups = 1 if index == 0 else 0  # verified, not timed
        launches = [self.launch(label) for _ in range(warm_ups + self.plan.rounds)]
        self.queued.append((index, label, launches, warm_ups))

    def read(self) -> None:
        """Wait for the queued blocks; record their times and what their checks found."""
        for index, label, launches, warm_ups in self.queued:
            for queued in launches:
                problem = queued.finding() if queued.finding is not None else None
                if problem is not None:
                    self.bad.append(BadLaunch(label, queued.number, problem))
            times = [queued.seconds() for queued in launches[warm_ups:]]
            self.samples.append(Block(index, label, stats_of(times)))
        self.queued.clear()


def interleaved(gemm: TimedGemm, plan: TimingPlan, verify: Mapping[str, Verify]) -> Timing:
    """Run blocks of every kernel in turn until the plan's ratio is known to its RSE target, or
    the time cap is reached, or a launch was wrong; `verify` checks the kernels it names."""
    start = time.monotonic()
    loop = _Loop(gemm, plan, verify)
    blocks, batch = 0, plan.min_blocks
    while True:
        for index in range(blocks, blocks + batch):
            for label in plan.labels:
                loop.block(index, label)
        loop.read()
        blocks += batch
        rse = relative_standard_error(block_ratios(loop.samples, plan.ratio))
        if rse <= plan.rse_target or time.monotonic() - start > plan.time_cap_s or loop.bad:
            break
        batch = max(2, plan.min_blocks // 2)
    medians = {label: float(all_launches(loop.samples, label).median) for label in plan.labels}
    over, under = plan.ratio
    return Timing(
        samples=loop.samples,
        medians=medians,
        speedup=medians[over] / medians[under],
        relative_standard_error=rse,
        blocks=blocks,
        bad=list(loop.bad),
        launches=dict(loop.launches),
    )

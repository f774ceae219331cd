"""Timing kernels on the GPU with pytest-benchmark, interleaved, every launch's output checked.

The worker builds a TimingSession (device buffers, the compiled launches, the check of every
launch: checks/launch_check.py), then
runs pytest on bench_gemm.py in process, in batches of blocks, until the speedup's relative
standard error is below the spec's target or the time cap is reached."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grader.checks.correctness import POISON_BITS
from grader.checks.launch_check import LaunchCheck, LaunchVerdict, describe

BENCH_FILE = Path(__file__).with_name("bench_gemm.py")
FLUSH_FACTOR = 2  # the L2 flush writes twice the L2's size


@dataclass
class TimedKernel:
    """A kernel ready to launch on device-resident inputs, into its own output."""

    label: str
    launch: Callable[[], None]
    output: Any  # cupy array, M x N float32


@dataclass
class BadLaunch:
    label: str
    launch_number: int
    verdict: LaunchVerdict
    elements: int

    def describe(self) -> str:
        return describe(self.verdict, self.elements)


@dataclass
class TimingSession:
    """Everything a round needs; shared with pytest through a plugin fixture."""

    kernels: dict[str, TimedKernel]
    check: LaunchCheck
    flush_buffer: Any  # cupy uint8, 2 x L2
    rounds: int
    order: list[tuple[int, str]] = field(default_factory=list)
    samples: dict[str, list[list[float]]] = field(default_factory=dict)
    launches: dict[str, int] = field(default_factory=dict)
    bad: list[BadLaunch] = field(default_factory=list)
    flushes: int = 0

    def before_round(self, label: str) -> None:
        """Outside the timed region: fresh inputs, the output poisoned, the L2 flushed."""
        kernel = self.kernels[label]
        self.check.renew()
        kernel.output.view("uint32").fill(int(POISON_BITS))
        self.flushes += 1
        self.flush_buffer.fill(self.flushes % 251)

    def after_round(self, label: str) -> None:
        """Outside the timed region: the launch must have produced the right C, every time; then
        the output is poisoned at once."""
        number = self.launches.get(label, 0) + 1
        self.launches[label] = number
        output = self.kernels[label].output
        verdict = self.check.verdict(output)
        output.view("uint32").fill(int(POISON_BITS))
        if not verdict.ok:
            self.bad.append(BadLaunch(label, number, verdict, int(output.size)))

    def measure(self, benchmark: Any, block: int, label: str) -> None:
        benchmark.group = label
        benchmark.extra_info["block"] = block
        benchmark.pedantic(
            self.kernels[label].launch,
            setup=lambda: self.before_round(label),
            teardown=lambda: self.after_round(label),
            rounds=self.rounds,
            warmup_rounds=1 if block == 0 else 0,
        )
        self.samples.setdefault(label, []).append(list(benchmark.stats.stats.data))


class _Plugin:
    """Parametrises bench_gemm.test_gemm with the session's block order and hands it the session."""

    def __init__(self, session: TimingSession) -> None:
        self._session = session

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "slot" in metafunc.fixturenames:
            ids = [f"{block}-{label}" for block, label in self._session.order]
            metafunc.parametrize("slot", self._session.order, ids=ids)

    @pytest.fixture
    def timing(self) -> TimingSession:
        return self._session

    # pytest-benchmark's own machine and commit facts cost seconds (py-cpuinfo, git calls) on
    # every check; the grader records the facts that matter (GPU, clocks, versions) itself.
    @pytest.hookimpl(tryfirst=True)
    def pytest_benchmark_generate_machine_info(self, config: Any) -> dict[str, str]:
        return {"node": platform.node(), "python_version": platform.python_version()}

    @pytest.hookimpl(tryfirst=True)
    def pytest_benchmark_generate_commit_info(self, config: Any) -> dict[str, str]:
        return {}


def _run_pytest(session: TimingSession, json_path: Path) -> int:
    # Only pytest-benchmark: other installed plugins would add start-up time to every check.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    with tempfile.TemporaryDirectory() as scratch:
        ini = Path(scratch) / "pytest.ini"
        ini.write_text("[pytest]\n")
        code = pytest.main(
            [
                str(BENCH_FILE),
                "-q",
                "-c",
                str(ini),
                "--rootdir",
                scratch,
                "-p",
                "no:cacheprovider",
                "-p",
                "pytest_benchmark.plugin",
                "-W",
                "ignore",
                f"--benchmark-json={json_path}",
            ],
            plugins=[_Plugin(session)],
        )
    return int(code)


@dataclass(frozen=True)
class Timing:
    """What the interleaved measurement found."""

    medians: dict[str, float]
    """Median seconds per launch, over every timed round of each kernel."""
    speedup: float
    """The first named kernel's median over the second's (baseline over student)."""
    relative_standard_error: float
    blocks: int
    bad: list[BadLaunch]
    json_files: list[Path]


def _block_ratios(session: TimingSession, ratio: tuple[str, str]) -> list[float]:
    over = session.samples.get(ratio[0], [])
    under = session.samples.get(ratio[1], [])
    return [statistics.median(a) / statistics.median(b) for a, b in zip(over, under, strict=False)]


def interleaved(
    session: TimingSession,
    min_pairs: int,
    rse_target: float,
    time_cap_s: float,
    keep: Path,
    ratio: tuple[str, str] = ("baseline", "student"),
) -> Timing:
    """Run blocks of every kernel in turn (in the session's order of kernels) until the ratio of
    the two named kernels' times is known to `rse_target`, or the time cap is reached."""
    start = time.monotonic()
    keep.mkdir(parents=True, exist_ok=True)
    labels = list(session.kernels)
    files: list[Path] = []
    blocks = 0
    batch = min_pairs
    while True:
        session.order = [(blocks + i, label) for i in range(batch) for label in labels]
        json_path = keep / f"benchmark-{len(files) + 1}.json"
        code = _run_pytest(session, json_path)
        if code != 0:
            raise RuntimeError(f"pytest-benchmark run failed (exit {code})")
        files.append(json_path)
        blocks += batch
        ratios = _block_ratios(session, ratio)
        rse = statistics.stdev(ratios) / len(ratios) ** 0.5 / statistics.mean(ratios)
        if rse <= rse_target or time.monotonic() - start > time_cap_s or session.bad:
            break
        batch = max(2, min_pairs // 2)
    medians = {
        label: statistics.median([t for block in blocks_ for t in block])
        for label, blocks_ in session.samples.items()
    }
    return Timing(
        medians=medians,
        speedup=medians[ratio[0]] / medians[ratio[1]],
        relative_standard_error=rse,
        blocks=blocks,
        bad=list(session.bad),
        json_files=files,
    )


class SmClock:
    """The SM clock as nvidia-smi reports it, read in the background so that it costs no wait."""

    def __init__(self) -> None:
        try:
            self._process: subprocess.Popen[str] | None = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", "0"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._process = None

    def mhz(self) -> str:
        if self._process is None:
            return "?"
        try:
            out, _ = self._process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            return "?"
        return out.strip() or "?"


def merge_json(files: list[Path], target: Path, machine: dict[str, str]) -> None:
    """All batches' pytest-benchmark JSON in one file, with the machine's facts."""
    merged: dict[str, Any] = {"grader_machine": machine, "benchmarks": []}
    for path in files:
        data = json.loads(path.read_text())
        merged.setdefault("machine_info", data.get("machine_info"))
        merged.setdefault("commit_info", data.get("commit_info"))
        merged["benchmarks"] += data.get("benchmarks", [])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(merged, indent=1))

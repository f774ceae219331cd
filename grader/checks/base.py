"""The one interface every check offers (`Check`), and what a check runs with (`Context`).

A check declares its key (as a spec lists it), the checks it needs to run first, whether it
needs a device, the results it will report (`plan`), and runs (`run`), reporting each result
through the context as soon as it has it. It never prints and never imports CuPy."""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from grader.backends.base import Backend
from grader.events import Event, ResultEvent, StartEvent
from grader.job import Job
from grader.program_cache import cache_dir
from grader.results import DESELECTED, CheckKind, CheckResult, CheckStatus, DeviceInfo
from grader.selection import Matcher, parse_selection
from grader.source import KernelSource
from grader.spec import ExerciseSpec

Emit = Callable[[Event], None]
"""Sends one event to the parent (a result, a stage, a new time limit)."""

EXIT_CONTEXT_LOST = 3
"""The child's exit code when the device may be unusable: a fresh child runs the rest."""
EXIT_TIMING_DEFERRED = 4
"""The child's exit code when it stopped before a check that takes its GPU alone
(Job.defer_timing): the parent runs the rest once the lane's correctness runs are done."""


@dataclass(frozen=True)
class PlannedCheck:
    """A result a check will report: its name, kind and points (known before anything runs)."""

    name: str
    kind: CheckKind
    max_score: float
    needs_gpu: bool = False
    """Graded only on a GPU (timed, profiled, or against what a GPU measured): a CPU grading
    (Gradescope's) skips it, and a GPU batch's performance_scores.csv carries its points."""


@dataclass(frozen=True)
class Halt:
    """Returned by a check after which nothing else can run: every result not yet reported
    gets `status` with `reason`, and the child exits with `exit_code`."""

    reason: str
    status: CheckStatus = CheckStatus.SKIPPED
    exit_code: int = 0
    symptoms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exit:
    """Returned by a check that leaves the rest to a fresh child (the device may be lost)."""

    code: int = EXIT_CONTEXT_LOST


STOPPED_AT_FIRST_FAILURE = "not run: stopped at the first failure (-x)"
STOPPED_AT_REASON = "not run: stopped at the failure the file declares (validate)"

Outcome = Halt | Exit | None
"""None: carry on with the next check."""


@dataclass
class Context:
    """What a check runs with: the job, its spec and source, the backend (None where no device
    is usable), a way to report, and the evidence earlier checks left for later ones."""

    job: Job
    spec: ExerciseSpec
    source: KernelSource
    backend: Backend | None
    device: DeviceInfo
    emit: Emit
    reported: list[CheckResult] = field(default_factory=list)
    evidence: dict[str, object] = field(default_factory=dict)
    """Keyed by the check that left it (the compiled kernel, the sweep's times, ...)."""
    _matcher: Matcher | None = None

    @property
    def course_root(self) -> Path:
        return Path(self.job.course_root)

    def selected(self, name: str) -> bool:
        """Whether the job's -k selection takes the result `name` (every one without it)."""
        if not self.job.selection:
            return True
        if self._matcher is None:
            self._matcher = parse_selection(self.job.selection)
        return self._matcher(name)

    def deselected(self, planned: PlannedCheck) -> CheckResult:
        """The result of a check -k left out."""
        why = f"{DESELECTED} {self.job.selection!r}"
        return CheckResult(
            planned.name, planned.kind, CheckStatus.SKIPPED, 0.0, planned.max_score, why
        )

    def report(self, result: CheckResult) -> None:
        """Record a result, and send it to the parent unless an earlier child already did. One
        that -k leaves out (a check that ran for what a selected one needs) is reported as
        deselected; compiling's is always shown (nothing runs without it)."""
        if result.kind != CheckKind.COMPILE and not self.selected(result.name):
            result = self.deselected(PlannedCheck(result.name, result.kind, result.max_score))
        self.reported.append(result)
        if result.name not in self.job.done:
            self.emit(ResultEvent(result=result))

    def done(self, name: str) -> bool:
        """Whether an earlier child of this grading already reported `name`."""
        return name in self.job.done

    def start(self, what: str, extra_s: float) -> None:
        """Tell the parent what runs next and how many seconds it adds to the time limit."""
        self.emit(StartEvent(check=what, extra_s=extra_s))

    @property
    def any_failed(self) -> bool:
        """Whether any check so far (here or in an earlier child) failed or could not finish."""
        return self.job.any_failed or any(r.failed_or_errored for r in self.reported)

    @property
    def stopping(self) -> Halt | None:
        """Why nothing more runs: the job stops at its first failure and one came, or at the
        failure validate looks for (Job.stop_at) and it came, here or in an earlier child."""
        if self.job.first_failure_stops and self.any_failed:
            return Halt(STOPPED_AT_FIRST_FAILURE)
        if self.job.reason_found or any(
            r.failed_or_errored and self.job.bears_out(r.kind, r.message) for r in self.reported
        ):
            return Halt(STOPPED_AT_REASON)
        return None

    def keep_dir(self) -> Path:
        """Where timing keeps its pytest-benchmark JSON."""
        if self.job.keep_dir:
            return Path(self.job.keep_dir)
        stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        return cache_dir().parent / "benchmarks" / stamp


class Check(ABC):
    """One kind of check. Implementations live in grader/checks/kinds/, one module each, and are
    found through grader/checks/registry.py by the key a spec lists them under."""

    key: ClassVar[str]
    """Its name in a spec's `checks:` list."""
    needs: ClassVar[tuple[str, ...]] = ()
    """Checks that run before it where the exercise has them (their evidence, their verdicts)."""
    uses_device: ClassVar[bool] = True
    """Whether it runs kernels (with no usable device it is skipped, saying why)."""
    takes_gpu_alone: ClassVar[bool] = False
    """Whether it times or profiles with the GPU to itself (the lane's exclusive lock): a batch
    defers it until the lane's correctness runs are done (Job.defer_timing)."""

    @abstractmethod
    def plan(self, spec: ExerciseSpec) -> list[PlannedCheck]:
        """Every result it will report for this spec, in order."""

    @abstractmethod
    def run(self, context: Context) -> Outcome:
        """Run, reporting every planned result that `context.done` does not name."""

    def hints(
        self, spec: ExerciseSpec, results: list[CheckResult], source: KernelSource
    ) -> list[str]:
        """Hints across its results, given in the parent once every result is in."""
        return []

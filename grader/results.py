"""What a grading run produces: one CheckResult per check, gathered into a Report; and the JSON
document a Report is written as (`check --json`, the batch store), versioned, with its schema.

These are pydantic dataclasses: built positionally like plain ones, validated on the way in,
and written and read as JSON by pydantic, never by hand. Messages, hints and names quote what a
submission chose (its lines, names, answers): each is bounded and made printable here, where it
is created, so no output format shows more."""

from __future__ import annotations

from dataclasses import field, replace
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.dataclasses import dataclass

from grader.text_bounds import bounded, bounded_list, bounded_name

REPORT_SCHEMA_VERSION = 1
"""The version of the report document; raised whenever a field changes meaning or goes."""


class _Word(str, Enum):
    """An enum whose members are their words, in text and in JSON ("passed", not the member)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class CheckKind(_Word):
    """What a check is about: a report groups and a gradebook sums by it."""

    COMPILE = "compile"
    CORRECTNESS = "correctness"
    PERFORMANCE = "performance"
    ANSWERS = "answers"
    SAFETY = "safety"


DESELECTED = "not run: deselected by -k"
"""How the message of a check that -k left out begins."""
NEEDS_GPU = "needs a GPU"
"""How the message of a check skipped for want of a GPU begins: its points are not graded
where it ran (a CPU batch, Gradescope), not lost."""
CPU_REFUSES = "cpu_refuses"
"""The compile check's symptom where the CPU backend refuses the kernel's source (inline PTX,
a `__shared__` array in a template...), on either backend: a CPU grading (Gradescope's) leaves
its correctness to a GPU, and a GPU batch's performance_scores.csv carries those points."""
REVIEWED = "reviewed"
"""The symptom of a check that a person graded (`grader review`): every renderer shows its
message, which says what the rubric gave."""
HOST_FAILED = "host_failed"
"""The symptom of the checks that a failure of the host stopped (its sandbox could not be set
up), not the kernel: the grading has no verdict, and says so instead of failing the kernel."""
NO_DEVICE = "no_device"
"""The symptom of the checks skipped because no backend could run them (no GPU, and no CPU
backend with its sandbox): with nothing failed before them, the grading has no verdict."""

REFUSED = "refused"
"""The symptom of a hand-in a batch could not read (a damaged zip, a link): nothing compiled;
summaries count it among the refused, not among the compile failures."""


class CheckStatus(_Word):
    """`failed`: the kernel is at fault; `error`: the grader could not finish the check;
    `pending`: a person grades it (`grader review`): its points are neither given nor lost."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"
    PENDING = "pending"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check."""

    name: str
    """Unique within an exercise, e.g. `correctness 17x33x65`."""
    kind: CheckKind
    status: CheckStatus
    """`failed`: the kernel is at fault; `error`: the grader could not finish the check."""
    score: float
    max_score: float
    message: str
    """For the student: what happened, where, and what to look at."""
    symptoms: tuple[str, ...] = ()
    """Machine-readable findings (e.g. `nan`, `unwritten`, `race`) used for cross-check hints."""
    figures: dict[str, float] = field(default_factory=dict)
    """Measured numbers (performance: speedup, times, GFLOP/s, threshold)."""
    answer: str = ""
    """What the student wrote, for a person to review (a pending check's free text)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", bounded_name(self.name))
        object.__setattr__(self, "message", bounded(self.message))
        object.__setattr__(self, "answer", bounded(self.answer))
        object.__setattr__(self, "symptoms", tuple(bounded_name(s) for s in self.symptoms))

    @property
    def failed_or_errored(self) -> bool:
        """Failed, or could not finish: what stops `-x` and keeps a kernel from being timed."""
        return self.status in ("failed", "error")

    @property
    def needs_a_gpu(self) -> bool:
        """Skipped for want of a GPU: its points are not graded here, not lost."""
        return self.status == "skipped" and self.message.startswith(NEEDS_GPU)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _CHECK_RESULT.dump_python(self, mode="json")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        return _CHECK_RESULT.validate_python(data)


@dataclass(frozen=True)
class DeviceInfo:
    """The device that produced the runtime verdicts."""

    backend: str
    """`gpu`, or `none` when runtime checks could not run."""
    name: str
    detail: str = ""
    """Compute capability, driver and runtime versions where known."""

    def __str__(self) -> str:
        return f"{self.name} ({self.detail})" if self.detail else self.name


@dataclass(frozen=True)
class Stage:
    """A step before the checks (a build), with what it cost; no check's clock runs during it."""

    name: str
    seconds: float
    cached: bool
    """Nothing was compiled: the result came from the cache."""
    detail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", bounded_name(self.name))
        object.__setattr__(self, "detail", bounded_name(self.detail))

    def __str__(self) -> str:
        return f"{self.name}: {self.detail} in {self.seconds:.2f} s"


@dataclass
class Report:
    """Everything `grader check` says about one submission to one exercise."""

    exercise: str
    title: str
    source: str
    """The submitted file's name (the student's choice)."""
    seed: int
    """The seed of the inputs: the instructor's record; shown unless `student_facing`."""
    device: DeviceInfo
    checks: list[CheckResult]
    hints: list[str] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)
    student_facing: bool = False
    """Handed to the student by a batch or Gradescope grading: the seed is left out (it would
    tell the inputs of every later grading of the same submission); it stays in the store."""

    def __post_init__(self) -> None:
        self.source = bounded_name(self.source)
        self.hints = bounded_list(self.hints)

    def for_student(self) -> Report:
        """This report as a batch hands it to the student: without the seed."""
        return replace(self, student_facing=True)

    @property
    def passed(self) -> bool:
        return all(c.status in ("passed", "skipped", "pending") for c in self.checks)

    @property
    def needs_gpu(self) -> float:
        """The points of checks skipped for want of a GPU: not graded here, not in `score`."""
        return round(sum(c.max_score for c in self.checks if c.needs_a_gpu), 2)

    @property
    def cpu_refuses(self) -> bool:
        """The CPU backend refuses this kernel's source (the compile check's symptom says so):
        a CPU grading leaves its correctness to a GPU."""
        return any(CPU_REFUSES in c.symptoms for c in self.checks)

    @property
    def pending(self) -> float:
        """The points that await a person's review (`grader review`): not in `score`, not lost."""
        return round(sum(c.max_score for c in self.checks if c.status == "pending"), 2)

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 2)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks), 2)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """A report as `to_json` wrote it (the device's detail folded into its name; one written
        for a student, with no seed, stays student-facing)."""
        document = ReportDocument.model_validate(data)
        return cls(
            exercise=document.exercise,
            title=document.title,
            source=document.source,
            seed=document.seed or 0,
            device=DeviceInfo(document.backend, document.device),
            checks=list(document.checks),
            hints=list(document.hints),
            stages=list(document.stages),
            student_facing=document.seed is None,
        )

    def to_json(self) -> dict[str, Any]:
        document = ReportDocument(
            exercise=self.exercise,
            title=self.title,
            source=self.source,
            passed=self.passed,
            score=self.score,
            max_score=self.max_score,
            pending=self.pending,
            needs_gpu=self.needs_gpu,
            device=str(self.device),
            backend=self.device.backend,
            seed=None if self.student_facing else self.seed,
            checks=self.checks,
            hints=self.hints,
            stages=self.stages,
        )
        exclude = {"seed"} if self.student_facing else set()
        data: dict[str, Any] = document.model_dump(mode="json", exclude=exclude)
        return data


class ReportDocument(BaseModel):
    """A Report as JSON: what `grader check --json` prints and the batch store keeps."""

    model_config = ConfigDict(extra="forbid")

    exercise: str = Field(description="The exercise's id, e.g. ex4.")
    title: str
    source: str = Field(description="The submitted file's name.")
    passed: bool = Field(description="No check failed or ended in error.")
    score: float = Field(description="The points given so far (pending ones not among them).")
    max_score: float
    pending: float = Field(0.0, description="The points that await a person's review.")
    needs_gpu: float = Field(
        0.0, description="The points of checks skipped for want of a GPU: not graded here."
    )
    device: str = Field(description="The device and its details, in words.")
    backend: str = Field(description="gpu, cpu, or none where no runtime check ran.")
    seed: int | None = Field(
        None, description="The inputs' seed; absent from what a batch hands to students."
    )
    checks: list[CheckResult]
    hints: list[str] = Field(default_factory=list)
    stages: list[Stage] = Field(
        default_factory=list, description="Builds before the checks, with their times."
    )
    schema_version: int = Field(
        REPORT_SCHEMA_VERSION, description="Raised whenever a field changes meaning or goes."
    )


_CHECK_RESULT = TypeAdapter(CheckResult)

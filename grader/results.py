"""What a grading run produces: one CheckResult per check, gathered into a Report.

Messages, hints and names quote what a submission chose (its lines, names, answers): each is
bounded and made printable here, where it is created, so no output format shows more."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from grader.text_bounds import bounded, bounded_list, bounded_name

CheckKind = Literal["compile", "correctness", "performance", "answers", "safety"]
CheckStatus = Literal["passed", "failed", "skipped", "error"]


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", bounded_name(self.name))
        object.__setattr__(self, "message", bounded(self.message))
        object.__setattr__(self, "symptoms", tuple(bounded_name(s) for s in self.symptoms))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["symptoms"] = list(self.symptoms)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        return cls(**{**data, "symptoms": tuple(data.get("symptoms", ()))})


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
        return all(c.status in ("passed", "skipped") for c in self.checks)

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
        return cls(
            exercise=data["exercise"],
            title=data["title"],
            source=data["source"],
            seed=data.get("seed", 0),
            device=DeviceInfo(data["backend"], data["device"]),
            checks=[CheckResult.from_json(c) for c in data["checks"]],
            hints=list(data.get("hints", [])),
            stages=[Stage(**stage) for stage in data.get("stages", [])],
            student_facing="seed" not in data,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "exercise": self.exercise,
            "title": self.title,
            "source": self.source,
            "passed": self.passed,
            "score": self.score,
            "max_score": self.max_score,
            "device": str(self.device),
            "backend": self.device.backend,
            "seed": self.seed,
            "checks": [c.to_json() for c in self.checks],
            "hints": list(self.hints),
            "stages": [asdict(stage) for stage in self.stages],
        }
        if self.student_facing:
            del data["seed"]
        return data

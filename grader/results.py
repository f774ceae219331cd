"""What a grading run produces: one CheckResult per check, gathered into a Report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

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

    def __str__(self) -> str:
        return f"{self.name}: {self.detail} in {self.seconds:.2f} s"


@dataclass
class Report:
    """Everything `grader check` says about one submission to one exercise."""

    exercise: str
    title: str
    source: str
    seed: int
    device: DeviceInfo
    checks: list[CheckResult]
    hints: list[str] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)

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
        """A report as `to_json` wrote it (the device's detail folded into its name)."""
        return cls(
            exercise=data["exercise"],
            title=data["title"],
            source=data["source"],
            seed=data["seed"],
            device=DeviceInfo(data["backend"], data["device"]),
            checks=[CheckResult.from_json(c) for c in data["checks"]],
            hints=list(data.get("hints", [])),
            stages=[Stage(**stage) for stage in data.get("stages", [])],
        )

    def to_json(self) -> dict[str, Any]:
        return {
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

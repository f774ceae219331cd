"""A context for one check kind at a time: a stand-in backend that times nothing (as the CPU
backend) and records what it was asked, and the events the check sent."""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.backends.base import Preparation, UnsupportedKernelError
from grader.checks.base import Context
from grader.events import Event, ResultEvent
from grader.job import Job
from grader.results import CheckResult, DeviceInfo
from grader.source import KernelSource
from grader.spec import ExerciseSpec, load_spec
from tests.conftest import ROOT


def spec_of(exercise_dir: str) -> ExerciseSpec:
    return load_spec(ROOT / "exercises" / exercise_dir / "spec.yaml")


@dataclass
class NoTimingBackend:
    """Runs nothing; `refuse` makes prepare() refuse the kernel as the CPU backend would."""

    refuse: str = ""
    prepared: list[dict[str, int]] = field(default_factory=list)
    arch: str = "sm_90"
    times_kernels: bool = False
    device: DeviceInfo = field(default_factory=lambda: DeviceInfo("cpu", "stand-in"))

    def l2_bytes(self) -> int | None:
        return None

    def prepare(self, source: object, compiled: object, defines: dict[str, int]) -> Preparation:
        if self.refuse:
            raise UnsupportedKernelError(self.refuse)
        self.prepared.append(defines)
        return Preparation(0.0, True, "stand-in")


def context(
    spec: ExerciseSpec,
    source: str = "",
    backend: object | None = None,
    *,
    done: tuple[str, ...] = (),
    any_failed: bool = False,
    answers_text: str | None = None,
) -> tuple[Context, list[Event]]:
    events: list[Event] = []
    job = Job(
        spec={}, source_text=source, display_name="kernel.cu", seed=7, done=done,
        any_failed=any_failed, course_root=str(ROOT), keep_dir="/nonexistent",
        answers_text=answers_text,
    )  # fmt: skip
    device = DeviceInfo("cpu", "stand-in")
    made = Context(job, spec, KernelSource(source, "kernel.cu"), backend, device, events.append)  # type: ignore[arg-type]
    return made, events


def sent(events: list[Event]) -> list[CheckResult]:
    return [e.result for e in events if isinstance(e, ResultEvent)]

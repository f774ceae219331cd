"""grade(exercise, source) -> Report: one trip through isolated children and back; in a batch
on GPU lanes, in two parts (start_grading, then Deferred.finish once the lane is free)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path

from grader import sandbox
from grader.bounded_read import read_bounded
from grader.checks.kinds.compile import COMPILE_CHECK
from grader.checks.registry import checks_for, plan
from grader.course import Exercise
from grader.errors import GraderError
from grader.expectations import Expectation
from grader.isolation import Graded, Progress, advance, finish
from grader.job import Job
from grader.notebook import in_notebook, readable_locations
from grader.results import HOST_FAILED, NO_DEVICE, CheckResult, CheckStatus, Report
from grader.selection import parse_selection
from grader.source import KernelSource


def new_seed() -> int:
    return secrets.randbelow(2**31)


MAX_ANSWERS_BYTES = 64 * 1024


def default_answers(exercise: Exercise, kernel: Path) -> Path | None:
    """The answers file next to the kernel, where the exercise asks questions."""
    spec = exercise.spec.answers
    return kernel.parent / spec.file if spec else None


def _read_answers(exercise: Exercise, path: Path | None) -> tuple[str | None, str]:
    """The answers file's text (None when absent) and why it cannot be used ('' when it can)."""
    if exercise.spec.answers is None or path is None:
        return None, ""
    try:
        raw = read_bounded(path, MAX_ANSWERS_BYTES, path.name)
    except FileNotFoundError:
        return None, ""
    except GraderError as exc:
        return None, str(exc)
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, f"{path.name}:{line}: not UTF-8 text"


def grade(
    exercise: Exercise,
    source: KernelSource,
    *,
    seed: int | None = None,
    backend: str = "auto",
    keep_dir: Path | None = None,
    answers: Path | None = None,
    env: dict[str, str] | None = None,
    first_failure_stops: bool = False,
    stop_at: tuple[Expectation, ...] = (),
    progress: Progress = lambda what: None,
    selection: str = "",
) -> Report:
    """Grade `source` for `exercise`: every check of its spec, each with a verdict (the rest
    skipped after the first that fails, with `first_failure_stops`, or after the first failure
    that bears out one of `stop_at`)."""
    started = start_grading(
        exercise, source, seed=seed, backend=backend, keep_dir=keep_dir, answers=answers,
        env=env, first_failure_stops=first_failure_stops, stop_at=stop_at, progress=progress,
        selection=selection,
    )  # fmt: skip
    return started if isinstance(started, Report) else started.finish()


@dataclass
class Deferred:
    """A grading stopped before the checks that take the GPU alone (`defer_timing`): a batch
    lane runs every correctness check first; `finish` runs the rest, as grade would have."""

    exercise: Exercise
    source: KernelSource
    job: Job
    graded: Graded
    progress: Progress

    def finish(self) -> Report:
        planned = plan(self.exercise.spec)
        job = replace(self.job, defer_timing=False)
        limit = self.exercise.spec.time_limit_s
        graded = advance(job, planned, limit, progress=self.progress, so_far=self.graded)
        return _report(self.exercise, self.source, self.job, graded)


def start_grading(
    exercise: Exercise,
    source: KernelSource,
    *,
    seed: int | None = None,
    backend: str = "auto",
    keep_dir: Path | None = None,
    answers: Path | None = None,
    env: dict[str, str] | None = None,
    first_failure_stops: bool = False,
    stop_at: tuple[Expectation, ...] = (),
    progress: Progress = lambda what: None,
    selection: str = "",
    defer_timing: bool = False,
) -> Report | Deferred:
    """grade's first part: the report where the grading is complete, else (with `defer_timing`,
    stopped before its timed checks) what `Deferred.finish` goes on from."""
    seed = new_seed() if seed is None else seed
    if selection:
        parse_selection(selection)  # a bad expression is one line before anything runs
    if backend == "cpu":
        sandbox.mode()  # no isolation for the native program: one line, before anything runs
    spec = exercise.spec
    answers_text, answers_error = _read_answers(exercise, answers)
    job = Job(
        spec=spec.model_dump(),
        source_text=source.text,
        display_name=source.display_name,
        seed=seed,
        backend=backend,
        course_root=str(exercise.directory.parent.parent),
        keep_dir=str(keep_dir) if keep_dir else "",
        answers_text=answers_text,
        answers_error=answers_error,
        env=dict(env or {}),
        first_failure_stops=first_failure_stops,
        stop_at=stop_at,
        selection=selection,
        defer_timing=defer_timing,
    )
    graded = advance(job, plan(spec), spec.time_limit_s, progress=progress)
    if graded.deferred:
        return Deferred(exercise, source, job, graded, progress)
    return _report(exercise, source, job, graded)


def _answers_hint(exercise: Exercise, job: Job, checks: list[CheckResult]) -> list[str]:
    """Where the answers were not graded (the kernel did not compile), what is wrong with the
    answers file's form all the same, so that one round of fixes covers both."""
    spec = exercise.spec.answers
    compiled = all(c.status != CheckStatus.FAILED for c in checks if c.name == COMPILE_CHECK)
    if spec is None or compiled:
        return []
    from grader.checks.answers_file import problems  # the answer models: only where needed

    wrong = problems(spec, job.answers_text, job.answers_error)
    return (
        [f"{wrong} (the answers are graded once the kernel compiles: mend this too)"]
        if wrong
        else []
    )


def _report(exercise: Exercise, source: KernelSource, job: Job, graded: Graded) -> Report:
    spec = exercise.spec
    device, checks, stages = finish(graded, plan(spec))
    if job.backend in ("gpu", "cpu") and device.backend != job.backend:
        # asked for a backend that is not there: no verdict, rather than one from the checks
        # that could run without it (compile alone would "pass" a stub)
        raise GraderError(
            f"--backend {job.backend}: not usable here: {device.detail or device.name}"
            + ("; --backend cpu runs the kernels on the CPU" if job.backend == "gpu" else "")
        )
    host = next((c for c in checks if HOST_FAILED in c.symptoms), None)
    if host is not None:
        # the sandbox failed mid-grading: no verdict, rather than the kernel's FAILED
        why = host.message.removeprefix("not run: ")
        raise GraderError(
            f"the grading could not be done here (the host failed, not the kernel): {why}"
        )
    failed = any(c.status in ("failed", "error") for c in checks)
    if not failed and any(NO_DEVICE in c.symptoms for c in checks):
        # no backend at all, and checks that needed one (a symptom, not their message, says
        # so: a message is bounded and escaped, a path in it altered): no verdict either
        raise GraderError(f"no GPU and no CPU backend here: {device.detail}")
    hints: list[str] = []
    for check in checks_for(spec):
        names = {planned.name for planned in check.plan(spec)}
        hints += check.hints(spec, [c for c in checks if c.name in names], source)
    hints += _answers_hint(exercise, job, checks)
    if in_notebook(source.display_name):  # `work.ipynb[cell 3]:19` -> `..., cell 3, line 19`
        checks = [replace(c, message=readable_locations(c.message)) for c in checks]
        hints = [readable_locations(hint) for hint in hints]
    return Report(
        exercise=exercise.id,
        title=exercise.title,
        source=readable_locations(source.display_name),
        seed=job.seed,
        device=device,
        checks=checks,
        hints=hints,
        stages=stages,
    )

"""Grading one discovered submission, as batch runs and the Gradescope entry point do."""

from __future__ import annotations

import os
from pathlib import Path

from grader.batch.student_folder import Submission
from grader.checks.registry import plan
from grader.errors import GraderError
from grader.grading import Deferred, start_grading
from grader.notebook import read_kernel
from grader.results import REFUSED, CheckResult, CheckStatus, DeviceInfo, Report


def grade_submission(
    submission: Submission, seed: int | None, backend: str, env: dict[str, str] | None = None
) -> Report:
    started = start_submission(submission, seed, backend, env)
    return started if isinstance(started, Report) else started.finish()


def start_submission(
    submission: Submission,
    seed: int | None,
    backend: str,
    env: dict[str, str] | None = None,
    defer_timing: bool = False,
) -> Report | Deferred:
    """The grading's report, or, with `defer_timing`, where it stopped before its timed checks
    (grader/grading.py's Deferred; its `finish` gives the report)."""
    if submission.error is not None:  # refused when discovered: nothing is read or run
        return _unreadable(submission, submission.error)
    assert submission.kernel is not None
    for path in (submission.kernel, submission.answers):
        # a link could point anywhere on the instructor's machine, and compile errors quote lines
        if path is not None and os.path.lexists(path) and _through_link(path):
            return _unreadable(
                submission, f"{path.name}: a symbolic link; hand in the file itself, not a link"
            )
    try:
        source = read_kernel(submission.kernel, submission.exercise.id)
    except GraderError as exc:
        return _unreadable(submission, str(exc))
    return start_grading(
        submission.exercise,
        source,
        seed=seed,
        backend=backend,
        answers=submission.answers,
        env=env,
        defer_timing=defer_timing,
    )


def _through_link(path: Path) -> bool:
    """Whether the file, or the folder it is in, is a link: what a student handed in. Links
    above that (a submissions folder reached through one, /tmp on macOS) are the instructor's,
    and every folder between the two was read without following links when discovered."""
    return os.path.islink(path) or os.path.islink(path.parent)


def _unreadable(submission: Submission, why: str) -> Report:
    """A submission with no kernel to compile: its compile check fails with the reason, the
    rest are skipped, and the result is recorded like any other."""
    checks = [
        CheckResult(p.name, p.kind, CheckStatus.FAILED, 0.0, p.max_score, why, (REFUSED,))
        if p.kind == "compile"
        else CheckResult(
            p.name, p.kind, CheckStatus.SKIPPED, 0.0, p.max_score, "not run: nothing to compile"
        )
        for p in plan(submission.exercise.spec)
    ]
    device = DeviceInfo("none", "nothing to compile")
    # no file of the student's by the kernel's name where none was read (a refused zip)
    name = submission.kernel.name if submission.kernel else "(no kernel read)"
    return Report(submission.exercise.id, submission.exercise.title, name, 0, device, checks)

"""What a known-wrong variant declares about itself, and whether a report bears it out.

A variant's header says why it is wrong and which failed check must catch it:

    // WRONG: loads A and B without bounds checks
    // expect: correctness "outside A or B"

Several `expect:` lines are alternatives (any one may match); the quoted text must appear in the
message of a failed check of that kind, or in a hint (case does not matter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from grader.errors import GraderError
from grader.results import Report

# `//` in a kernel, `#` in an answers file
_EXPECT = re.compile(r'^\s*(?://|#)\s*expect:\s*(\w+)\s*(?:"([^"]*)")?\s*$')
_WHY = re.compile(r"^\s*(?://|#)\s*WRONG:\s*(.+?)\s*$")
_KINDS = ("compile", "correctness", "performance", "answers", "safety")

Verdict = Literal["ok", "wrong", "inconclusive", "needs a GPU"]


@dataclass(frozen=True)
class Expectation:
    kind: str
    text: str

    def shown_by(self, kind: str, text: str) -> bool:
        """Whether a failed result of `kind` whose message (with any hints) is `text` bears
        this expectation out."""
        return kind == self.kind and self.text.lower() in text.lower()


@dataclass(frozen=True)
class VariantHeader:
    why: str
    expectations: tuple[Expectation, ...]


def read_header(path: Path) -> VariantHeader:
    """The WRONG: and expect: lines at the top of a variant; missing ones are a GraderError."""
    why = ""
    expectations: list[Expectation] = []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for number, line in enumerate(lines[:30], start=1):
        if match := _WHY.match(line):
            why = match.group(1)
        elif match := _EXPECT.match(line):
            if match.group(1) not in _KINDS:
                raise GraderError(
                    f"{path}:{number}: expect: unknown check kind {match.group(1)!r} "
                    f"(allowed: {', '.join(_KINDS)})"
                )
            expectations.append(Expectation(match.group(1), match.group(2) or ""))
    if not why or not expectations:
        raise GraderError(
            f"{path}: a known-wrong variant needs a '// WRONG: why' line and at least one "
            "'// expect: KIND \"text\"' line in its first 30 lines"
        )
    return VariantHeader(why, tuple(expectations))


def _gpu_only_skipped(report: Report) -> list[str]:
    """Checks skipped because this backend cannot time kernels (timing, measured answers)."""
    if report.device.backend == "gpu":
        return []
    return [c.name for c in report.checks if c.needs_a_gpu]


def judge_rejection(report: Report, header: VariantHeader | None) -> tuple[Verdict, str]:
    """Was a kernel that must fail rejected (for the declared reason, if one is declared)?"""
    failed = [c for c in report.checks if c.failed_or_errored]
    gpu_only = set(_gpu_only_skipped(report))
    gpu_kinds = {c.kind for c in report.checks if c.name in gpu_only}
    expected_kinds = {e.kind for e in header.expectations} if header else set()
    if not failed and expected_kinds & gpu_kinds:
        return "needs a GPU", "caught only by what the grader measures, which needs a GPU"
    if not failed:
        if any(c.status == "skipped" for c in report.checks):
            return "inconclusive", "no check failed, some were skipped"
        return "wrong", "every check passed"
    if header is None:
        return "ok", f"rejected by {failed[0].name}"
    for expectation in header.expectations:
        for check in failed:
            if expectation.shown_by(check.kind, "\n".join([check.message, *report.hints])):
                return "ok", f"rejected by {check.name}"
    wanted = " or ".join(f'{e.kind} "{e.text}"' for e in header.expectations)
    return "wrong", f"rejected, but not for the declared reason ({wanted}); first: {failed[0].name}"


def judge_acceptance(report: Report) -> tuple[Verdict, str]:
    """Did a kernel that must pass pass every check, none skipped?"""
    failed = [c for c in report.checks if c.failed_or_errored]
    if failed:
        return "wrong", f"{failed[0].name}: {failed[0].message.splitlines()[0]}"
    gpu_only = _gpu_only_skipped(report)
    if any(c.status == "skipped" and c.name not in gpu_only for c in report.checks):
        return "inconclusive", "passed, but some checks were skipped"
    timing = " (performance needs a GPU)" if gpu_only else ""
    return "ok", f"{report.score:g}/{report.max_score:g} points{timing}"

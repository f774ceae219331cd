"""Questions a student answers in a YAML file, graded against what the grader itself measured on
the same GPU in the same run; never against the tutorial's figures. The free-text explanation
is graded by a person with the spec's rubric (`grader review`), pending until then."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace
from typing import Annotated, Literal

from pydantic import Field

from grader.checks.answers_load import CASE_FREE, AnswersModel, Loaded, misspelled
from grader.checks.explanation import EXPLANATION, explanation_result, unanswered_explanation
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import AnswersSpec

Limit = Literal["threads_per_block", "shared_memory_per_block", "registers_per_thread"]


class TileMeasurement(AnswersModel):
    """What the student measured for one tile size."""

    time_ms: float | None = Field(None, gt=0, description="Kernel time in milliseconds.")
    gflops: float | None = Field(None, gt=0, description="GFLOP/s (2*M*N*K / time).")


class TileSweepAnswers(AnswersModel):
    """ex2's answers.yaml."""

    gpu: str = Field("", description="The GPU measured on (free text).")
    measurements: dict[int, TileMeasurement] = Field(
        default_factory=dict, description="Per tile size: time_ms and gflops."
    )
    fastest_tile_size: int | None = Field(None, description="The tile size that ran fastest.")
    limit_64: Annotated[Limit, CASE_FREE] | None = Field(
        None, description="What stops TILE_SIZE = 64."
    )
    explanation: str = Field("", description="Why (free text, for the instructor).")


@dataclass(frozen=True)
class SweepEvidence:
    """What the grader found: median milliseconds per tile size (None where nothing was timed)
    and what stopped the probe launch."""

    medians_ms: dict[int, float] | None
    flops: float
    limit: Limit | None
    limit_detail: str
    no_timing: str = "needs a GPU: the grader measures the sweep there and grades your figures"
    """Why there are no medians, where there are none (a skipped check's message)."""


def problem_result(name: str, problem: str, share: float) -> CheckResult:
    """A question whose answer could not be read: failed with where and why."""
    return CheckResult(name, CheckKind.ANSWERS, CheckStatus.FAILED, 0.0, share, problem)


def close(given: float, measured: float, tolerance: float, floor: float = 0.0) -> bool:
    """Within `tolerance` (a share) of the measured value, or within `floor` of it."""
    return abs(given - measured) <= tolerance * abs(measured) + floor


def tile_sweep_check_names(values: list[int]) -> list[str]:
    """The graded questions of a tile sweep, in order (the explanation comes after them)."""
    names = [f"answers TILE_SIZE={v} figures" for v in values]
    return [*names, "answers fastest tile size", "answers limit of 64"]


def question_share(spec: AnswersSpec, values: list[int]) -> float:
    return round(spec.points / len(tile_sweep_check_names(values)), 4)


def tile_sweep_question(loc: tuple[str | int, ...]) -> str | None:
    """The question of a location in ex2's answers file (None: the file as a whole)."""
    loc = misspelled(loc, ("measurements", "fastest_tile_size", "limit_64", "explanation"))
    if len(loc) >= 2 and loc[0] == "measurements" and str(loc[1]).isdigit():  # 16 or "16"
        return f"answers TILE_SIZE={int(loc[1])} figures"
    if loc and loc[0] == "measurements":  # not a mapping of tile sizes: every size's figures
        return "answers TILE_SIZE=* figures"
    if loc and loc[0] == "fastest_tile_size":
        return "answers fastest tile size"
    if loc and loc[0] == "limit_64":
        return "answers limit of 64"
    if loc and loc[0] == "explanation":
        return EXPLANATION
    return None


def with_problems(
    graded: list[CheckResult], problems: dict[str | None, str], share: float
) -> list[CheckResult]:
    """Each question with a problem failed with it, once; problems of no graded question go to
    the explanation's entry, which a student always sees (failed where it is worth no points;
    still pending where a person reviews it: a stray key costs no written answer)."""

    def of(name: str) -> str:
        """The problems of the question `name`, joined ('' where it has none)."""
        found = [p for q, p in problems.items() if q is not None and fnmatch.fnmatchcase(name, q)]
        return "; ".join(found)

    out = [
        problem_result(r.name, said, share) if (said := of(r.name)) else r
        for r in graded
        if r.name != EXPLANATION
    ]
    explanation = next(r for r in graded if r.name == EXPLANATION)
    if own := of(EXPLANATION):  # an explanation that is not text: that, and nothing else
        explanation = problem_result(EXPLANATION, own, explanation.max_score)
    rest = [
        problem
        for question, problem in problems.items()
        if question is None
        or not any(fnmatch.fnmatchcase(r.name, question) for r in [*out, explanation])
    ]
    if rest:
        status = explanation.status if explanation.max_score else CheckStatus.FAILED
        message = "; ".join(rest) + f"\n{explanation.message}"
        explanation = replace(explanation, status=status, message=message)
    return [*out, explanation]


def grade_tile_sweep(
    loaded: Loaded[TileSweepAnswers] | str,
    evidence: SweepEvidence,
    spec: AnswersSpec,
    values: list[int],
) -> list[CheckResult]:
    names = tile_sweep_check_names(values)
    share = question_share(spec, values)
    if isinstance(loaded, str):
        results = [
            CheckResult(n, CheckKind.ANSWERS, CheckStatus.FAILED, 0.0, share, loaded) for n in names
        ]
        return [*results, unanswered_explanation(loaded, spec.review)]
    graded = _grade_tile_sweep(loaded.answers, evidence, spec, values)
    return with_problems(graded, loaded.problems, share)


def _grade_tile_sweep(
    answers: TileSweepAnswers, evidence: SweepEvidence, spec: AnswersSpec, values: list[int]
) -> list[CheckResult]:
    names = tile_sweep_check_names(values)
    share = question_share(spec, values)

    def result(name: str, ok: bool | None, message: str) -> CheckResult:
        if ok is None:
            return CheckResult(name, CheckKind.ANSWERS, CheckStatus.SKIPPED, 0.0, share, message)
        if ok:
            return CheckResult(name, CheckKind.ANSWERS, CheckStatus.PASSED, share, share, message)
        return CheckResult(name, CheckKind.ANSWERS, CheckStatus.FAILED, 0.0, share, message)

    no_timing = (
        "needs a GPU: the grader measures the sweep there and grades your figures against it"
    )
    out: list[CheckResult] = []
    for value, name in zip(values, names, strict=False):
        given = answers.measurements.get(value, TileMeasurement())
        if given.time_ms is None or given.gflops is None:
            out.append(result(name, False, f"measurements.{value}: give time_ms and gflops"))
            continue
        if evidence.medians_ms is None:
            out.append(result(name, None, no_timing))
            continue
        ms = evidence.medians_ms[value]
        gflops = evidence.flops / (ms * 1e6)
        ok = close(given.time_ms, ms, spec.figure_tolerance) and close(
            given.gflops, gflops, spec.figure_tolerance
        )
        verdict = "within" if ok else "not within"
        out.append(
            result(
                name,
                ok,
                f"yours {given.time_ms:g} ms / {given.gflops:,.0f} GFLOP/s; measured here "
                f"{ms:.3f} ms / {gflops:,.0f} GFLOP/s: "
                f"{verdict} {100 * spec.figure_tolerance:.0f}%",
            )
        )
    fastest_name = names[len(values)]
    if answers.fastest_tile_size is None:
        out.append(result(fastest_name, False, "fastest_tile_size: not answered"))
    elif evidence.medians_ms is None:
        out.append(result(fastest_name, None, no_timing))
    else:
        best = min(evidence.medians_ms.values())
        ties = sorted(
            v for v, ms in evidence.medians_ms.items() if ms <= best * (1 + spec.tie_tolerance)
        )
        ok = answers.fastest_tile_size in ties
        measured = ", ".join(f"{v}: {ms:.3f} ms" for v, ms in sorted(evidence.medians_ms.items()))
        accepted = " or ".join(str(v) for v in ties)
        out.append(
            result(
                fastest_name,
                ok,
                f"yours {answers.fastest_tile_size}; fastest here {accepted} ({measured})",
            )
        )
    limit_name = names[-1]
    if answers.limit_64 is None:
        out.append(result(limit_name, False, "limit_64: not answered"))
    elif evidence.limit is None:
        out.append(result(limit_name, None, f"no evidence: {evidence.limit_detail}"))
    else:
        ok = answers.limit_64 == evidence.limit
        out.append(
            result(
                limit_name,
                ok,
                f"yours {answers.limit_64}; the grader's launch: {evidence.limit_detail}",
            )
        )
    return [*out, explanation_result(answers.explanation, spec.review)]

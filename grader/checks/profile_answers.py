"""ex3's questions: the student's Nsight Compute figures and conclusions, graded against the
grader's own ncu run on the same GPU (never the tutorial's figures). Questions that need
measurements are skipped, with the reason, when there are none; the free text is kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from grader.checks.answers import close, with_problems
from grader.checks.answers_load import CASE_FREE, AnswersModel, Loaded, misspelled
from grader.checks.explanation import EXPLANATION, explanation_result, unanswered_explanation
from grader.profiling.metrics import LEVELS, METRICS
from grader.results import CheckKind, CheckResult, CheckStatus
from grader.spec import AnswersSpec

Level = Annotated[Literal["dram", "l2", "l1"], CASE_FREE]
DramReason = Annotated[
    Literal[
        "matrices_fit_in_l2",
        "tiled_kernel_has_no_reuse",
        "both_are_compute_bound",
        "does_not_apply",
    ],
    CASE_FREE,
]
Kernel = Annotated[Literal["naive", "tiled"], CASE_FREE]
FIT = "matrices_fit_in_l2"
_FLOOR = {"MB": 0.5, "us": 1.0, "%": 2.0}
"""Absolute slack per unit, for figures near zero (a naive kernel's shared-memory bytes)."""


class KernelFigures(AnswersModel):
    """What the student read from ncu for one kernel (MB = 10^6 bytes)."""

    duration_us: float | None = Field(None, ge=0, description="gpu__time_duration.sum in us.")
    dram_read_mb: float | None = Field(None, ge=0, description="dram__bytes_read.sum in MB.")
    l2_mb: float | None = Field(None, ge=0, description="lts__t_bytes.sum in MB.")
    l1_global_load_mb: float | None = Field(
        None, ge=0, description="l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum in MB."
    )
    shared_mb: float | None = Field(
        None, ge=0, description="smsp__sass_data_bytes_mem_shared.sum in MB."
    )
    sm_throughput_pct: float | None = Field(
        None, ge=0, le=100, description="sm__throughput.avg.pct_of_peak_sustained_elapsed."
    )
    occupancy_pct: float | None = Field(
        None, ge=0, le=100, description="sm__warps_active.avg.pct_of_peak_sustained_active."
    )


class TrafficReduction(AnswersModel):
    level: Level | None = Field(None, description="Where tiling cuts the bytes moved the most.")
    factor: float | None = Field(None, gt=0, description="By what factor: naive / tiled.")


class ProfilingAnswers(AnswersModel):
    """ex3's answers.yaml."""

    gpu: str = Field("", description="The GPU profiled on (free text).")
    naive: KernelFigures = Field(default_factory=KernelFigures, description="The naive kernel.")
    tiled: KernelFigures = Field(default_factory=KernelFigures, description="The tiled kernel.")
    fewer_bytes: TrafficReduction = Field(
        default_factory=TrafficReduction, description="The level and factor of the reduction."
    )
    closer_to_roofline: Kernel | None = Field(
        None, description="The kernel closer to the compute roofline (higher SM throughput)."
    )
    dram_similar_because: DramReason | None = Field(
        None, description="Why DRAM bytes barely differ between the two kernels."
    )
    explanation: str = Field("", description="Why (free text, for the instructor).")


@dataclass(frozen=True)
class ProfileEvidence:
    """What the grader found: figures per kernel label (None where nothing was profiled), and the
    GPU's L2 size (None without a GPU)."""

    figures: dict[str, dict[str, float]] | None
    no_profile: str
    """Why there are no figures, where there are none (a skipped check's message)."""
    n: int
    l2_bytes: int | None


FIGURE_CHECKS = ("answers naive figures", "answers tiled figures")
REDUCTION = "answers traffic reduction"
ROOFLINE = "answers roofline"
DRAM = "answers DRAM and L2"
PROFILE_CHECK_NAMES = (*FIGURE_CHECKS, REDUCTION, ROOFLINE, DRAM)


def profile_question_share(spec: AnswersSpec) -> float:
    return round(spec.points / len(PROFILE_CHECK_NAMES), 4)


def _ratio(naive: float, tiled: float) -> float:
    return naive / tiled if tiled > 0 else float("inf")


def _verdict(name: str, ok: bool | None, message: str, share: float) -> CheckResult:
    if ok is None:
        return CheckResult(name, CheckKind.ANSWERS, CheckStatus.SKIPPED, 0.0, share, message)
    score = share if ok else 0.0
    return CheckResult(
        name,
        CheckKind.ANSWERS,
        CheckStatus.PASSED if ok else CheckStatus.FAILED,
        score,
        share,
        message,
    )


_QUESTIONS = {
    "naive": FIGURE_CHECKS[0],
    "tiled": FIGURE_CHECKS[1],
    "fewer_bytes": REDUCTION,
    "closer_to_roofline": ROOFLINE,
    "dram_similar_because": DRAM,
    "explanation": EXPLANATION,
}


def profiling_question(loc: tuple[str | int, ...]) -> str | None:
    """The question of a location in ex3's answers file (None: the file as a whole)."""
    loc = misspelled(loc, _QUESTIONS)
    return _QUESTIONS.get(str(loc[0])) if loc else None


def grade_profiling(
    loaded: Loaded[ProfilingAnswers] | str, evidence: ProfileEvidence, spec: AnswersSpec
) -> list[CheckResult]:
    share = profile_question_share(spec)
    if isinstance(loaded, str):
        failed = [_verdict(n, False, loaded, share) for n in PROFILE_CHECK_NAMES]
        return [*failed, unanswered_explanation(loaded, spec.review)]
    return with_problems(_grade_profiling(loaded.answers, evidence, spec), loaded.problems, share)


def _grade_profiling(
    answers: ProfilingAnswers, evidence: ProfileEvidence, spec: AnswersSpec
) -> list[CheckResult]:
    share = profile_question_share(spec)
    verdicts = [
        _figures(label, getattr(answers, label), evidence, spec.figure_tolerance)
        for label in ("naive", "tiled")
    ]
    verdicts.append(_reduction(answers.fewer_bytes, evidence, spec.figure_tolerance))
    verdicts.append(_roofline(answers.closer_to_roofline, evidence, spec.tie_tolerance))
    verdicts.append(_dram(answers.dram_similar_because, evidence))
    out = [
        _verdict(name, ok, message, share)
        for name, (ok, message) in zip(PROFILE_CHECK_NAMES, verdicts, strict=True)
    ]
    return [*out, explanation_result(answers.explanation, spec.review)]


Verdict = tuple[bool | None, str]
"""Passed (True), failed (False) or skipped (None), and the message saying why."""


def _figures(
    label: str, given: KernelFigures, evidence: ProfileEvidence, tolerance: float
) -> Verdict:
    missing = [m.key for m in METRICS if getattr(given, m.key) is None]
    if missing:
        return False, f"{label}: give {', '.join(missing)}"
    if evidence.figures is None:
        return None, evidence.no_profile
    measured = evidence.figures[label]
    off = []
    for metric in METRICS:
        value, truth = getattr(given, metric.key), measured[metric.key]
        if not close(value, truth, tolerance, _FLOOR[metric.unit]):
            off.append(f"{metric.key} yours {value:g}, measured {truth:,.4g} {metric.unit}")
    if off:
        return False, (
            f"{label}: not within {100 * tolerance:.0f}% of the grader's ncu run: " + "; ".join(off)
        )
    return True, f"{label}: all {len(METRICS)} figures within {100 * tolerance:.0f}% of ncu's"


def _reduction(given: TrafficReduction, evidence: ProfileEvidence, tolerance: float) -> Verdict:
    if given.level is None or given.factor is None:
        return False, "fewer_bytes: give level (dram, l2 or l1) and factor (naive / tiled)"
    if evidence.figures is None:
        return None, evidence.no_profile
    naive, tiled = evidence.figures["naive"], evidence.figures["tiled"]
    ratios = {level: _ratio(naive[key], tiled[key]) for level, key in LEVELS.items()}
    best = max(ratios, key=lambda level: ratios[level])
    measured = ", ".join(f"{level} {ratio:.2f}x" for level, ratio in ratios.items())
    if given.level != best:
        return False, f"yours {given.level}; the largest cut measured is at {best} ({measured})"
    if not close(given.factor, ratios[best], tolerance):
        return False, (
            f"{best} is right, but the factor {given.factor:g} is not within "
            f"{100 * tolerance:.0f}% of the measured {ratios[best]:.2f}x ({measured})"
        )
    return True, f"{best}, {given.factor:g}x (measured {measured})"


def _roofline(
    given: Literal["naive", "tiled"] | None, evidence: ProfileEvidence, tie: float
) -> Verdict:
    if given is None:
        return False, "closer_to_roofline: give naive or tiled"
    if evidence.figures is None:
        return None, evidence.no_profile
    key = "sm_throughput_pct"
    values = {label: evidence.figures[label][key] for label in ("naive", "tiled")}
    top = max(values.values())
    accepted = [label for label, value in values.items() if value >= top * (1 - tie)]
    measured = f"SM throughput naive {values['naive']:.1f}%, tiled {values['tiled']:.1f}%"
    return given in accepted, f"yours {given}; {measured} of peak"


def _dram(given: DramReason | None, evidence: ProfileEvidence) -> Verdict:
    if given is None:
        return False, "dram_similar_because: not answered"
    if evidence.l2_bytes is None:
        return None, "needs a GPU: the answer depends on the size of its L2 cache"
    working_set = 3 * evidence.n * evidence.n * 4
    fits = working_set <= evidence.l2_bytes
    expected = FIT if fits else "does_not_apply"
    facts = (
        f"A, B and C at n = {evidence.n} take {working_set / 1e6:.1f} MB; this GPU's L2 holds "
        f"{evidence.l2_bytes / 1e6:.1f} MB"
    )
    if evidence.figures is not None:
        dram = {label: evidence.figures[label]["dram_read_mb"] for label in ("naive", "tiled")}
        facts += f"; DRAM read: naive {dram['naive']:.1f} MB, tiled {dram['tiled']:.1f} MB"
    return given == expected, f"yours {given}; {facts}"

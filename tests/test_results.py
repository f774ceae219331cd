"""Results and reports: built positionally, validated, written as the versioned document and read
back the same; statuses and kinds are enums that read as their words everywhere."""

from __future__ import annotations

import csv
import io
import json

import pytest
from pydantic import ValidationError

from grader.results import (
    REPORT_SCHEMA_VERSION,
    CheckKind,
    CheckResult,
    CheckStatus,
    DeviceInfo,
    Report,
    Stage,
)

PASSED = CheckResult("compile", CheckKind.COMPILE, CheckStatus.PASSED, 10.0, 10.0, "compiled")
FAILED = CheckResult(
    "correctness 1x1x1", CheckKind.CORRECTNESS, CheckStatus.FAILED, 0.0, 9.0, "C[0,0]", ("nan",)
)
REPORT = Report(
    "ex1", "Non-square", "kernel.cu", 7, DeviceInfo("cpu", "CPU", "x86_64"), [PASSED, FAILED],
    hints=["look at the edges"], stages=[Stage("build", 1.25, True, "cached")],
)  # fmt: skip


def test_statuses_and_kinds_read_as_their_words_in_text_json_and_csv() -> None:
    assert f"{FAILED.status}" == str(FAILED.status) == "failed" == FAILED.status
    assert json.loads(json.dumps(FAILED.to_json()))["status"] == "failed"
    out = io.StringIO()
    csv.writer(out).writerow([FAILED.kind, FAILED.status])
    assert out.getvalue().strip() == "correctness,failed"


def test_a_report_reads_back_as_it_was_written() -> None:
    document = json.loads(json.dumps(REPORT.to_json()))
    assert document["schema_version"] == REPORT_SCHEMA_VERSION
    assert (document["passed"], document["score"], document["max_score"]) == (False, 10.0, 19.0)
    again = Report.from_json(document)
    assert again.checks == REPORT.checks and again.stages == REPORT.stages
    assert again.hints == REPORT.hints and again.seed == 7 and not again.student_facing
    assert again.to_json() == document


def test_what_a_student_is_handed_has_no_seed_and_stays_that_way() -> None:
    handed = REPORT.for_student().to_json()
    assert "seed" not in handed
    assert "seed" not in Report.from_json(handed).to_json()


def test_a_result_with_a_status_no_check_has_is_refused() -> None:
    with pytest.raises(ValidationError):
        CheckResult("compile", CheckKind.COMPILE, "done", 1.0, 1.0, "")  # type: ignore[arg-type]


def test_a_report_with_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError):
        Report.from_json({**REPORT.to_json(), "verdict": "pass"})

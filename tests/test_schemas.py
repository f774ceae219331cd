"""`grader schema`'s documents describe what the grader writes: a report as `check --json`
prints it, and a batch record as results.sqlite keeps it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import jsonschema
import pytest

from grader.batch.store import ResultStore
from grader.results import CheckResult, DeviceInfo, Report, Stage
from grader.schemas import schema

REPORT = Report(
    exercise="ex4",
    title="2x2 register tiling",
    source="kernel.cu",
    seed=7,
    device=DeviceInfo("cpu", "CPU emulator", "x86_64"),
    checks=[
        CheckResult("compile", "compile", "passed", 10.0, 10.0, "compiled for sm_90"),
        CheckResult("correctness 1x1x1", "correctness", "failed", 0.0, 9.0, "C[0,0]", ("nan",)),
    ],
    hints=["a hint"],
    stages=[Stage("build", 1.5, False, "CPU programs")],
)


def test_a_report_as_check_json_prints_it_follows_the_report_schema() -> None:
    document = json.loads(json.dumps(REPORT.to_json()))
    jsonschema.validate(document, schema("report"))
    jsonschema.validate(REPORT.for_student().to_json(), schema("report"))  # without the seed
    assert document["schema_version"] == 1


def test_a_report_missing_a_field_does_not_follow_it() -> None:
    document = REPORT.to_json()
    del document["checks"]
    with pytest.raises(jsonschema.ValidationError, match="'checks' is a required property"):
        jsonschema.validate(document, schema("report"))


def test_a_stored_batch_row_follows_the_batch_record_schema(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "results.sqlite")
    store.record("run-1", "alice", "ex4", "ab" * 32, REPORT)
    store.close()
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        db.row_factory = sqlite3.Row
        row = dict(db.execute("SELECT * FROM results").fetchone())
    row.pop("id")
    row["report"] = json.loads(row.pop("report_json"))
    row["passed"] = bool(row["passed"])
    jsonschema.validate(row, schema("batch-record"))
    assert row["report"]["seed"] == 7  # the store keeps the seed; students never see it

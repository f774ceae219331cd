"""The JSON Schemas of what the grader writes for programs: `check --json` (a report document)
and a batch record (a row of results.sqlite). Printed by `grader schema`; generated from the
models that write the documents, so they cannot drift apart."""

from __future__ import annotations

from typing import Any

DOCUMENTS = ("report", "batch-record")
"""What `grader schema` prints; the models are imported only then (the CLI reads this list at
every start)."""


def schema(document: str) -> dict[str, Any]:
    """The JSON Schema of `document` (one of DOCUMENTS)."""
    from grader.batch.store import BatchRecord
    from grader.results import REPORT_SCHEMA_VERSION, ReportDocument

    model = ReportDocument if document == "report" else BatchRecord
    generated: dict[str, Any] = model.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"grader/{document}/v{REPORT_SCHEMA_VERSION}",
        **generated,
    }

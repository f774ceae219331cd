"""`grader schema [report|batch-record]`: print the JSON Schema of `check --json`'s document or
of a batch record (a row of results.sqlite)."""

from __future__ import annotations

from grader.errors import EXIT_OK
from grader.report.json_text import schema_json
from grader.schemas import schema


def run(*, document: str) -> int:
    print(schema_json(schema(document)))
    return EXIT_OK

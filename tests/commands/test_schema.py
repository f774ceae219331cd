"""`grader schema` prints the schemas the grader's JSON documents follow."""

from __future__ import annotations

import json

import jsonschema

from tests.conftest import run_grader


def test_check_json_follows_the_schema_grader_schema_prints() -> None:
    schema = run_grader(["schema"])
    assert schema.returncode == 0, schema.stderr
    report = run_grader(
        ["check", "ex1", "--json", "--file", "solutions/ex1-non-square/wrong/syntax_error.cu"]
    )
    assert report.returncode == 1, report.stderr
    jsonschema.validate(json.loads(report.stdout), json.loads(schema.stdout))


def test_the_batch_record_schema_names_every_column_of_the_store() -> None:
    done = run_grader(["schema", "batch-record"])
    assert done.returncode == 0, done.stderr
    properties = set(json.loads(done.stdout)["properties"])
    assert {"student", "exercise", "score", "max_score", "passed", "report"} <= properties


def test_an_unknown_document_is_one_line_and_exit_2() -> None:
    done = run_grader(["schema", "gradebook"])
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert "invalid choice: 'gradebook'" in done.stderr

"""Reports as JSON for programs: the one object of `grader check --json`, the list of a
student's reports in their feedback file, and the schemas of `grader schema`. A report's fields
are the Report's own (grader/results.py: to_json)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from grader.results import Report


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2)


def feedback_json(reports: Sequence[Report]) -> str:
    """One student's feedback as JSON: the list of their reports."""
    return json.dumps([r.to_json() for r in reports], indent=2)


def schema_json(schema: dict[str, Any]) -> str:
    """A JSON Schema (`grader schema`) as printed."""
    return json.dumps(schema, indent=2)

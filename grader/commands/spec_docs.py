"""`grader spec-docs`: print the course.yaml / spec.yaml reference (Markdown, docs/spec.md)."""

from __future__ import annotations

from grader.errors import EXIT_OK
from grader.spec_docs import render


def run() -> int:
    print(render(), end="")
    return EXIT_OK

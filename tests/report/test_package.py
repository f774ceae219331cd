"""The report package sits below what grades: it renders results and imports nothing that
produces them (grading, batch, commands), so every part above can use it."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

ABOVE = ("grader.batch", "grader.commands", "grader.grading", "grader.validation", "grader.cli")


def test_report_imports_nothing_above_it() -> None:
    for path in sorted((ROOT / "grader/report").glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        above = {name for name in imported if name.startswith(ABOVE)}
        assert not above, f"grader/report/{path.name} imports {above}"

"""`grader spec-docs`: the reference page documents every model of course.yaml and spec.yaml,
in tables Markdown reads as written."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

from pydantic import BaseModel

from grader.spec_docs import _SECTIONS, render
from tests.conftest import ROOT, run_grader


def _schema_modules() -> list[ModuleType]:
    """grader.course, and the modules of grader.spec where the spec's models live."""
    modules = [importlib.import_module("grader.course")]
    try:
        spec = importlib.import_module("grader.spec")
    except ModuleNotFoundError:
        return modules
    parts = pkgutil.iter_modules(getattr(spec, "__path__", []), "grader.spec.")
    return [*modules, spec, *(importlib.import_module(m.name) for m in parts)]


def test_every_model_of_the_schema_has_its_section() -> None:
    models = {
        cls
        for module in _schema_modules()
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseModel)
        and cls.__module__ == module.__name__
        and not cls.__name__.startswith("_")
    }
    models = {m for m in models if not any(m in other.__bases__ for other in models)}  # no bases
    documented = {model for _, model in _SECTIONS}
    assert models - documented == set(), "add these to grader/spec_docs.py's _SECTIONS"
    text = render()
    for title in ("## spec.yaml: sweep", "## spec.yaml: profile", "## spec.yaml: answers"):
        assert title in text
    assert not re.search(r"grader\.\w+\.", text) and "Optional[" not in text


def test_every_table_row_has_its_four_cells() -> None:
    rows = [line for line in render().splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        cells = row.replace("\\|", "").split("|")
        assert len(cells) == 6, row  # four cells between five bars: no | left unescaped
    assert "| `kind` | `'tile_sweep' \\| 'profiling'` |" in render()


def test_the_command_prints_the_committed_page() -> None:
    done = run_grader(["spec-docs"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == (ROOT / "docs/spec.md").read_text()

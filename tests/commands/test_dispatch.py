"""The commands' shape: every command the parser knows has one function, called with its
options by name; no command imports another, nor formats text (grader/report/ does)."""

from __future__ import annotations

import ast
from pathlib import Path

from grader.cli import build_parser
from grader.commands import COMMANDS
from tests.conftest import ROOT

COMMANDS_DIR = ROOT / "grader/commands"
FORMATTING = ("rich.table", "rich.text", "rich.markup", "rich.panel", "rich.progress", "json")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_every_parsed_command_has_its_function() -> None:
    parser = build_parser()
    [commands] = [a for a in parser._actions if a.dest == "command"]
    assert set(commands.choices or ()) == set(COMMANDS)


def test_no_module_imports_a_command_but_the_dispatch() -> None:
    for path in sorted((ROOT / "grader").rglob("*.py")):
        if path == COMMANDS_DIR / "__init__.py":
            continue
        commands = {
            name
            for name in _imports(path)
            if name.startswith("grader.commands.") or name == "grader.commands"
        }
        allowed = {"grader.commands"} if path == ROOT / "grader/cli.py" else set()
        allowed |= {"grader.commands.dispatch"} if path == ROOT / "grader/cli.py" else set()
        assert commands <= allowed, f"{path.relative_to(ROOT)} imports {commands - allowed}"


def test_commands_leave_formatting_to_the_report_package() -> None:
    for path in sorted(COMMANDS_DIR.glob("*.py")):
        imports = _imports(path)
        formatting = {name for name in imports if name.startswith(FORMATTING)}
        assert not formatting, f"{path.name} formats text itself: {formatting}"

"""`grader doctor`'s table: one line per component this machine offers the grader, and where
runtime checks will run."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class Component:
    """One line of the table: a component, whether it is usable, and what was found."""

    name: str
    ok: bool
    detail: str
    needed: bool
    """Without it the grader cannot work at all (else it only loses a backend or a tool)."""


def print_doctor(components: list[Component], runs_on: str | None, console: Console) -> None:
    table = Table(title="grader doctor")
    for column in ("component", "status", "detail"):
        table.add_column(column, overflow="fold")
    for component in components:
        if component.ok:
            status = Text("ok", style="green")
        elif component.needed:
            status = Text("missing", style="bold red")
        else:
            status = Text("unavailable", style="yellow")
        table.add_row(component.name, status, component.detail)
    console.print(table)
    console.print(
        f"runtime checks (--backend auto) run on {runs_on}"
        if runs_on
        else "[yellow]no kernel can run here (no GPU, and no CPU backend with its sandbox): "
        "a check stops with the reason above[/yellow]"
    )

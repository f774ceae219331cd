"""What `grader review` shows: one written answer with the rubric to tick, each review as it is
recorded, and how many answers each exercise still has pending. The answer is the student's
text: it goes in as a rich Text, never as markup (it was made printable when graded)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.text_bounds import reflowed

Rubric = tuple[tuple[str, float, str], ...]
"""(id, points, says) of each item."""

PROMPT_ITEMS = "items earned (numbers or ids; all, none; s: skip, q: stop)> "
PROMPT_COMMENT = "comment for the student (Enter: none)> "


def answer_panel(
    who: tuple[str, str],
    text: str,
    rubric: Rubric,
    position: tuple[int, int],
    earlier: tuple[tuple[str, ...], float, str] | None = None,
) -> RenderableType:
    """`who` (exercise, student)'s answer, then the rubric numbered for ticking; `earlier`: the
    items, points and comment of a review being redone."""
    items = Table(box=None, padding=(0, 1), show_header=False)
    for number, (item, points, says) in enumerate(rubric, start=1):
        mark = "+" if earlier and item in earlier[0] else " "
        items.add_row(f"{mark}{number}", Text(item, style="bold"), f"{points:g}", Text(says))
    parts: list[RenderableType] = [Text(reflowed(text) or "(empty)"), Text(""), items]
    if earlier is not None:
        parts.append(Text(f"reviewed before ('+'): {earlier[1]:g} points. {earlier[2]}"))
    exercise, student = who
    index, total = position
    title = escape(f"{exercise}: {student} ({index} of {total})")
    return Panel(Group(*parts), title=title, title_align="left")


def recorded_line(exercise: str, student: str, points: float, max_points: float) -> Text:
    return Text(f"recorded: {student}, {exercise}: {points:g}/{max_points:g}", style="green")


def pending_lines(counts: Sequence[tuple[str, int, int]], out: str) -> list[str]:
    """Per exercise: answers reviewed and pending; then how to go on where any are pending."""
    lines = [f"{exercise}: {done} reviewed, {left} pending" for exercise, done, left in counts]
    if any(left for _, _, left in counts):
        lines.append(f"go on with: grader review {out}")
    elif not counts:
        lines.append(
            "no written answers to review in this batch (none handed in for an exercise "
            "with a rubric)"
        )
    return lines

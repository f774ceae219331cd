"""What `grader batch` says on stderr while it runs: what discovery noticed, how much there is to
do, a progress bar, gradings that could not be done, the GPU lanes' baselines, where the results
are. Names and reasons come from students: they are escaped, never read as markup."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class BatchConsole:
    """The batch's messages, on stderr (stdout stays free)."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.ungraded = 0
        """Gradings that raised (not_graded) in this run."""

    def note(self, text: str) -> None:
        """Something discovery noticed (a layout, a refused entry)."""
        self.console.print(escape(text), style="dim")

    def plan(self, todo: int, to_refuse: int, jobs: int, missing: int, refused: int) -> None:
        """What this run does (`todo` gradings, of which `to_refuse` refused hand-ins recorded
        with 0 points, nothing run), and what the whole batch misses and refuses."""
        what = f"{todo} grading(s): {todo - to_refuse} to run, {jobs} at a time"
        if to_refuse:
            what += f"; {to_refuse} refused hand-in(s), recorded with 0 points"
        self.console.print(
            f"{what}; in the whole batch: {missing} missing, {refused} refused (0 points, "
            "nothing run; counted per exercise; see summary.md)"
        )

    @contextmanager
    def progress(self, total: int) -> Iterator[Callable[[], None]]:
        """A bar over `total` gradings; what it yields moves the bar on by one."""
        columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=self.console) as progress:
            task = progress.add_task("grading", total=total)
            yield lambda: progress.advance(task)

    def not_graded(self, student: str, exercise: str, error: BaseException) -> None:
        """A grading that raised: the first 300 characters of why, on one line."""
        why = " ".join(str(error).split())[:300] or type(error).__name__
        self.console.print(escape(f"{student} ({exercise}): not graded: {why}"), style="red")
        self.ungraded += 1

    def left_ungraded(self) -> None:
        """The run's end, where some gradings raised: they have no verdict yet."""
        self.console.print(
            f"{self.ungraded} grading(s) could not be graded (see above): nothing of them is "
            "recorded; run the same command with --resume to grade them",
            style="red",
        )

    def baseline(self, line: str) -> None:
        """A GPU lane's baseline timings (yellow where they drifted)."""
        self.console.print(escape(line), style="yellow" if "drifted" in line else "dim")

    def done(self, out: Path) -> None:
        self.console.print(
            escape(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}")
        )

    def nothing_graded(self, students: list[str]) -> None:
        """A re-grade of `students` (--student) that found nothing of theirs to grade."""
        named = ", ".join(students)
        self.console.print(
            escape(f"nothing of {named} was graded: none of it could be read (see above)"),
            style="red",
        )

"""The review sheet (`grader review --sheet` / `--record`): one exercise's written answers as a
CSV that TAs fill in a spreadsheet, a row per answer and a column per rubric item, then read
back as reviews. A cell says `x` (the item earned) or `0` (not earned); a row with every item
blank stays pending. Every row is checked before any is recorded: a sheet with a mistake records
nothing and says where each mistake is (file, line, column) and what a cell may say."""

from __future__ import annotations

import csv
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.batch.reviews import Review, Written
from grader.csv_safe import safe_cell, write_csv
from grader.errors import GraderError
from grader.text_bounds import reflowed

RUBRIC_ROW = "(rubric)"
"""The first row under the header: what each item asks for, for whoever fills the sheet."""
_FIXED = ("student", "exercise", "answer_id", "answer")
EARNED, NOT_EARNED = "x", "0"
"""What an item's cell says (case and surrounding spaces aside); nothing else is read."""
_ALLOWED = (
    "mark x where the answer earns the item, 0 where it does not, or leave every item of the "
    "row blank to keep it pending"
)


def _column(item: str, points: float) -> str:
    return f"{item} ({points:g})"


def write_sheet(
    path: Path,
    exercise: str,
    answers: Sequence[Written],
    rubric: tuple[tuple[str, float, str], ...],
    earlier: Mapping[tuple[str, str, str], Review] | None = None,
) -> None:
    """A new sheet (never over an existing file): mark an item's cell with x where the answer
    earns it, 0 where it does not; a row left blank stays pending. An answer reviewed before
    (`earlier`: by student, exercise and the answer's hash; never another student's review of
    the same words) comes with that review's marks and comment."""
    if path.exists():
        raise GraderError(f"{path}: already there; give a new file name (nothing is overwritten)")
    if path.suffix != ".csv":
        raise GraderError(f"{path}: the review sheet is a .csv")
    header = [*_FIXED, *(_column(i, p) for i, p, _ in rubric), "comment"]
    rows: list[list[str | float | None]] = [
        [
            RUBRIC_ROW,
            exercise,
            "",
            "mark x where the answer says it, 0 where not",
            *(s for _, _, s in rubric),
            "",
        ]
    ]
    for answer in answers:
        before = (earlier or {}).get((answer.student, answer.exercise, answer.digest))
        marks = [("x" if i in before.ticked else "0") if before else "" for i, _, _ in rubric]
        comment = before.comment if before else ""
        row = [answer.student, exercise, answer.digest[:12], reflowed(answer.text)]
        rows.append([*row, *marks, comment])
    write_csv(path, header, rows)


def sheet_exercise(path: Path) -> tuple[str, int] | None:
    """The exercise a sheet's rows name, with the first line naming it; None where no row does.
    A GraderError where it is no review sheet or its rows name different exercises."""
    table = _table(path)
    if not table or tuple(c.strip() for c in table[0][: len(_FIXED)]) != _FIXED:
        raise GraderError(
            f"{path}:1: not a review sheet (its header starts {', '.join(_FIXED)}): "
            "write one with `grader review OUT --exercise EX --sheet FILE.csv`"
        )
    first: tuple[str, int] | None = None
    for line, row in enumerate(table[1:], start=2):
        if len(row) < 2 or not any(cell.strip() for cell in row):
            continue
        named = row[1].strip()
        if first is None:
            first = (named, line)
        elif named != first[0]:
            raise GraderError(
                f"{path}:{line}: exercise {named!r}, but line {first[1]} says {first[0]!r}: "
                "a review sheet is one exercise's"
            )
    return first


def _table(path: Path) -> list[list[str]]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            return list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderError(f"{path}: cannot read the sheet ({exc})") from None


def read_sheet(
    path: Path,
    exercise: str,
    answers: Sequence[Written],
    rubric: tuple[tuple[str, float, str], ...],
    reviewer: str,
) -> tuple[list[Review], int]:
    """The reviews a filled sheet gives, and how many rows it leaves blank (pending); a
    GraderError listing every mistake, one per line, where there is any."""
    table = _table(path)
    expected = [*_FIXED, *(_column(i, p) for i, p, _ in rubric), "comment"]
    if not table or [c.strip() for c in table[0]] != expected:
        raise GraderError(
            f"{path}:1: the header is not {exercise}'s review sheet ({', '.join(expected)}): "
            "write one with `grader review OUT --exercise EX --sheet FILE.csv`"
        )
    by_student = {str(safe_cell(a.student)): a for a in answers}
    by_student.update({a.student: a for a in answers})  # as a spreadsheet may save it back
    seen: dict[str, int] = {}
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    reviews: list[Review] = []
    blank = 0
    mistakes: list[str] = []
    for line, row in enumerate(table[1:], start=2):
        if not any(cell.strip() for cell in row) or (row and row[0] == RUBRIC_ROW):
            continue
        where = f"{path}:{line}"
        if len(row) != len(expected):
            mistakes.append(f"{where}: {len(row)} cells, expected {len(expected)}")
            continue
        student, row_exercise, answer_id = row[0], row[1].strip(), row[2].strip()
        cells, comment = row[4:-1], row[-1].strip()
        found = by_student.get(student)
        if row_exercise != exercise:
            mistakes.append(f"{where}: exercise {row_exercise!r}, but this sheet is {exercise}'s")
            continue
        if found is None:
            mistakes.append(f"{where}: {student!r} has no answer to review in this batch")
            continue
        if found.student in seen:
            mistakes.append(f"{where}: {student} is on line {seen[found.student]} already")
            continue
        seen[found.student] = line
        if not found.digest.startswith(answer_id) or not answer_id:
            mistakes.append(
                f"{where}: {student}'s answer changed since this sheet was written "
                "(answer_id differs): write a new sheet for it"
            )
            continue
        if not any(c.strip() for c in cells):
            if comment:
                mistakes.append(f"{where}: a comment but no item marked: {_ALLOWED}")
            else:
                blank += 1
            continue
        bad = _bad_cells(rubric, cells)
        mistakes.extend(f"{where}: column {column}: {shown}: {_ALLOWED}" for column, shown in bad)
        ticked = tuple(i for (i, _, _), c in zip(rubric, cells, strict=True) if _earned(c))
        reviews.append(
            Review(student=found.student, exercise=exercise, answer_sha256=found.digest,
                   ticked=ticked, rubric=rubric, comment=comment, reviewer=reviewer,
                   reviewed_at=now)
        )  # fmt: skip
    if len(mistakes) == 1:
        raise GraderError(f"{mistakes[0]}; nothing recorded")
    if mistakes:
        last = f"{path}: {len(mistakes)} mistakes, nothing recorded; mend them and run again"
        raise GraderError("\n".join([*mistakes, last]))
    return reviews, blank


def _earned(cell: str) -> bool:
    return cell.strip().lower() == EARNED


def _bad_cells(
    rubric: tuple[tuple[str, float, str], ...], cells: Sequence[str]
) -> list[tuple[str, str]]:
    """(column, what it says) of each item cell that is neither x nor 0: blank ones too, in a
    row that marks others."""
    return [
        (_column(item, points), repr(cell) if cell.strip() else "blank")
        for (item, points, _), cell in zip(rubric, cells, strict=True)
        if not _earned(cell) and cell.strip() != NOT_EARNED
    ]

"""The parsers of the term's end, for instructors: `gradebook`, `feedback`, `review` and
`similarity` (grader/cli.py builds the rest)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_term_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the term's commands to `commands` (grader/cli.py's subparsers)."""
    book = commands.add_parser(
        "gradebook", help="the term's gradebook from batch outputs, with the late policy"
    )
    book.add_argument("outs", type=Path, nargs="+", help="`grader batch --out` folders")
    book.add_argument(
        "--to", dest="target", type=Path, required=True, help="the CSV to write (and .sqlite)"
    )
    book.add_argument(
        "--file-times",
        action="store_true",
        help="where no platform recorded a hand-in time, take the files' modification times "
        "(only if they are kept from the hand-in: a download resets them)",
    )

    feedback = commands.add_parser(
        "feedback", help="each student's feedback as an HTML page with its plots, from a batch"
    )
    feedback.add_argument("out", type=Path, help="a `grader batch --out` folder")
    feedback.add_argument(
        "--student", action="append", default=[], help="only this student (repeatable)"
    )

    review = commands.add_parser(
        "review", help="grade a batch's written answers by hand, with each exercise's rubric"
    )
    review.add_argument("out", type=Path, help="a `grader batch --out` folder")
    review.add_argument(
        "--exercise", action="append", default=[], help="only this exercise (repeatable)"
    )
    review.add_argument(
        "--student", action="append", default=[], help="only this student (repeatable)"
    )
    review.add_argument(
        "--again", action="store_true", help="answers reviewed already too (a new review wins)"
    )
    review.add_argument("--reviewer", help="your name, kept with each review (default: login)")
    how = review.add_mutually_exclusive_group()
    how.add_argument(
        "--sheet", type=Path, help="write the answers to review as a CSV for TAs (a new file)"
    )
    how.add_argument("--record", type=Path, help="record the reviews of a filled-in sheet")
    how.add_argument(
        "--status", action="store_true", help="only count the answers reviewed and pending"
    )

    similar = commands.add_parser(
        "similarity", help="pairs of near-copies among one exercise's submissions (a pointer)"
    )
    similar.add_argument("submissions", type=Path, help="the folder batch grading reads")
    similar.add_argument(
        "--exercise", required=True, action="append", help="the exercise id (ex1): one only"
    )
    similar.add_argument(
        "--threshold", type=float, default=0.8, help="the share of tokens shared (default 0.8)"
    )
    similar.add_argument("--report", type=Path, help="an HTML page with the pairs side by side")

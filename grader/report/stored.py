"""What the batch's renderers read, as protocols: a stored result and a person behind a
submission. grader/batch/store.py's StoredResult and grader/batch/submitters.py's Submitter
fit them, and report/ imports no batch module."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Graded(Protocol):
    """One grading as the results store keeps it."""

    @property
    def student(self) -> str: ...
    @property
    def exercise(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def max_score(self) -> float: ...
    @property
    def report(self) -> dict[str, Any]:
        """The Report's JSON (Report.from_json reads it)."""

    @property
    def submitted_at(self) -> float:
        """When its files were handed in (seconds since the epoch; 0 where unknown)."""


class Person(Protocol):
    """Someone behind a submission, as an export names them ('' where it does not)."""

    @property
    def sid(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def name(self) -> str: ...


Roster = Mapping[str, Sequence[Person]]
"""Student key -> everyone who made that submission (a Gradescope export's groups); a key not
in it is its own row."""

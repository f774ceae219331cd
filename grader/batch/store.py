"""The results database (SQLite, in the output directory): one row per submission x exercise x
grading run, written in one transaction once the grading is complete, so that an interruption at
any moment (even kill -9) loses at most the gradings in flight and never counts one twice."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grader import __version__
from grader.batch.reviews import REVIEWS_SCHEMA, Review, apply_review, written_answer
from grader.batch.store_schema import CURRENT, SCHEMA
from grader.batch.submitters import Submitter
from grader.errors import GraderError
from grader.report.stored import Person
from grader.results import Report, ReportDocument


def source_hash(*texts: bytes) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(len(text).to_bytes(8, "little"))
        digest.update(text)
    return digest.hexdigest()


class BatchRecord(BaseModel):
    """One row of results.sqlite: one grading of one submission to one exercise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str = Field(description="The batch run that graded it.")
    student: str = Field(description="Who submitted (the submission's folder or file name).")
    exercise: str = Field(description="The exercise's id.")
    source_sha256: str = Field(description="Hash of the submitted files and the exercise's spec.")
    score: float
    max_score: float
    passed: bool
    report: ReportDocument = Field(description="The full report (report_json in the table).")
    device: str
    grader_version: str
    graded_at: str = Field(description="Local time, ISO 8601 with its UTC offset.")


@dataclass(frozen=True)
class StoredResult:
    student: str
    exercise: str
    score: float
    max_score: float
    report: dict[str, Any]
    submitted_at: float = 0.0
    """When its files were handed in (seconds since the epoch; 0 where unknown)."""


class ResultStore:
    """Every failure to write (a full disk, say) is a GraderError naming the file; a result is
    recorded whole or not at all, and those recorded before stay."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA + REVIEWS_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise self._failed("cannot open the results", exc) from None

    @classmethod
    def of_batch(cls, out: Path) -> ResultStore:
        """The store of a batch's output folder; a GraderError where it has none."""
        database = out / "results.sqlite"
        if not database.is_file():
            raise GraderError(f"{out}: no results.sqlite here: give a `grader batch --out` folder")
        return cls(database)

    def _failed(self, what: str, exc: BaseException) -> GraderError:
        reason = getattr(exc, "strerror", None) or str(exc)
        return GraderError(
            f"{self.path}: {what} ({reason}); every result recorded before is kept: make room "
            "and run again with --resume"
        )

    def close(self) -> None:
        self._db.close()

    def record(
        self,
        run_id: str,
        student: str,
        exercise: str,
        digest: str,
        report: Report,
        submitted_at: float | None = None,
        time_source: str = "files",
    ) -> None:
        """The grading, and when its files were handed in (for the late policy; `time_source`:
        `export` or `files`, see Submission), at once."""
        document = report.to_json()
        row = BatchRecord(
            run_id=run_id,
            student=student,
            exercise=exercise,
            source_sha256=digest,
            score=report.score,
            max_score=report.max_score,
            passed=report.passed,
            report=ReportDocument.model_validate(document),
            device=str(report.device),
            grader_version=__version__,
            graded_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )
        try:
            self._insert(row, document, submitted_at, time_source)
        except sqlite3.Error as exc:
            raise self._failed(f"cannot record {student}'s {exercise}", exc) from None

    def _insert(
        self, row: BatchRecord, document: dict[str, Any], at: float | None, source: str
    ) -> None:
        with self._db:  # one transaction: the row is there whole, or not at all
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO results (run_id, student, exercise, source_sha256, score, max_score,"
                " passed, report_json, device, grader_version, graded_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.run_id,
                    row.student,
                    row.exercise,
                    row.source_sha256,
                    row.score,
                    row.max_score,
                    int(row.passed),
                    json.dumps(document),
                    row.device,
                    row.grader_version,
                    row.graded_at,
                ),
            )
            if at is not None:  # the first time these files were seen is kept
                self._db.execute(
                    "INSERT OR IGNORE INTO handed_in VALUES (?, ?, ?, ?, ?)",
                    (row.student, row.exercise, row.source_sha256, at, source),
                )

    def record_submitters(self, roster: dict[str, Sequence[Person]]) -> None:
        """Who is behind each submission, as an export names them (kept for the term's
        gradebook, whose rows are per person); a submission's earlier list is replaced."""
        rows = [
            (student, i, p.sid, p.email, p.name)
            for student, people in roster.items()
            for i, p in enumerate(people)
        ]
        try:
            with self._db:
                self._db.executemany(
                    "DELETE FROM submitters WHERE student = ?", [(s,) for s in roster]
                )
                self._db.executemany("INSERT INTO submitters VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise self._failed("cannot record who submitted", exc) from None

    def submitters(self) -> dict[str, list[Submitter]]:
        """Student key -> the people behind that submission, in the export's order."""
        rows = self._db.execute(
            "SELECT student, sid, email, name FROM submitters ORDER BY student, position"
        )
        roster: dict[str, list[Submitter]] = {}
        for student, sid, email, name in rows:
            roster.setdefault(student, []).append(Submitter(sid, email, name))
        return roster

    def record_view(self, view: dict[str, Any]) -> None:
        """What the batch's last run found, for writing its outputs again (grader/batch/view.py)."""
        try:
            with self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO batch_view VALUES (1, ?)", (json.dumps(view),)
                )
        except sqlite3.Error as exc:
            raise self._failed("cannot record what the batch found", exc) from None

    def view(self) -> dict[str, Any] | None:
        row = self._db.execute("SELECT view_json FROM batch_view").fetchone()
        return json.loads(row[0]) if row else None

    def count(self, run_id: str) -> int:
        """How many results run `run_id` recorded."""
        (number,) = self._db.execute(
            "SELECT COUNT(*) FROM results WHERE run_id = ?", (run_id,)
        ).fetchone()
        return int(number)

    def graded(self) -> set[tuple[str, str, str]]:
        """(student, exercise, source hash) of every complete result."""
        rows = self._db.execute(
            f"SELECT student, exercise, source_sha256 FROM results r WHERE {CURRENT}"
        )
        return {(s, e, h) for s, e, h in rows}

    def current_pairs(self) -> set[tuple[str, str]]:
        """(student, exercise) of every current result, without reading the reports."""
        rows = self._db.execute(f"SELECT DISTINCT student, exercise FROM results r WHERE {CURRENT}")
        return {(s, e) for s, e in rows}

    def set_aside(self, absent: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """Sets aside the results of exercises no longer handed in (one dropped from a
        resubmission): kept in the database, but no longer the student's; returns those that
        were current until now."""
        current = self.current_pairs()
        dropped = [pair for pair in absent if pair in current]
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO set_aside SELECT student, exercise, MAX(id)"
                    " FROM results WHERE student = ? AND exercise = ?",
                    dropped,
                )
        except sqlite3.Error as exc:
            raise self._failed("cannot set aside the results of dropped exercises", exc) from None
        return dropped

    def set_aside_now(self) -> list[tuple[str, str]]:
        """(student, exercise) whose newest result is set aside: not handed in any more."""
        rows = self._db.execute(
            "SELECT a.student, a.exercise FROM set_aside a WHERE a.last_id >= (SELECT MAX(id)"
            " FROM results r WHERE r.student = a.student AND r.exercise = a.exercise)"
        )
        return [(s, e) for s, e in rows]

    def handed_in(self) -> dict[tuple[str, str], tuple[float, str]]:
        """(student, exercise) -> when the files of its newest result were handed in, and where
        that time comes from."""
        rows = self._db.execute(
            "SELECT r.student, r.exercise, h.submitted_at, h.source FROM results r"
            " JOIN handed_in h"
            " ON h.student = r.student AND h.exercise = r.exercise"
            " AND h.source_sha256 = r.source_sha256"
            " WHERE r.id = (SELECT MAX(id) FROM results WHERE student = r.student"
            " AND exercise = r.exercise)"
        )
        return {(s, e): (float(t), str(source)) for s, e, t, source in rows}

    def latest(self, reviewed: bool = True) -> list[StoredResult]:
        """The newest result of each student x exercise; with `reviewed`, each written answer
        that a person reviewed graded by that review (grader/batch/reviews.py)."""
        rows = self._db.execute(
            "SELECT r.student, r.exercise, r.score, r.max_score, r.report_json,"
            " COALESCE(h.submitted_at, 0) FROM results r LEFT JOIN handed_in h"
            " ON h.student = r.student AND h.exercise = r.exercise"
            " AND h.source_sha256 = r.source_sha256"
            " WHERE r.id = (SELECT MAX(id) FROM results WHERE student = r.student"
            f" AND exercise = r.exercise) AND {CURRENT} ORDER BY r.student, r.exercise"
        )
        results = [
            StoredResult(s, e, sc, mx, json.loads(rep), float(at)) for s, e, sc, mx, rep, at in rows
        ]
        if not reviewed:
            return results
        reviews = self.reviews()
        return [_with_review(result, reviews) for result in results]

    def record_review(self, review: Review) -> None:
        """The review of one answer, replacing any earlier one of the same text."""
        try:
            with self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    review.row(),
                )
        except sqlite3.Error as exc:
            raise self._failed(f"cannot record the review of {review.student}", exc) from None

    def reviews(self) -> dict[tuple[str, str, str], Review]:
        """(student, exercise, answer hash) -> its review."""
        rows = self._db.execute("SELECT * FROM reviews")
        found = [Review.from_row(tuple(row)) for row in rows]
        return {(r.student, r.exercise, r.answer_sha256): r for r in found}


def _with_review(result: StoredResult, reviews: dict[tuple[str, str, str], Review]) -> StoredResult:
    written = written_answer(result.student, result.report)
    review = written and reviews.get((result.student, result.exercise, written.digest))
    if not review:
        return result
    report = apply_review(Report.from_json(result.report), review)
    return replace(result, score=report.score, max_score=report.max_score, report=report.to_json())

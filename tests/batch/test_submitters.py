"""Who a Gradescope submission belongs to: every submitter of an entry in the export, keyed by
the submission, never by a name."""

from __future__ import annotations

from pathlib import Path

from grader.batch.submitters import Submitter, read_export
from tests.batch.exports import write_export


def test_an_export_is_keyed_by_submission_and_keeps_every_submitter(tmp_path: Path) -> None:
    entries = read_export(write_export(tmp_path / "export"))
    assert entries == {
        "submission_1": (Submitter("", "", "a b"),),
        "submission_2": (Submitter("", "", "a_b"),),
        "submission_3": (
            Submitter('=HYPERLINK("http://evil.example","x")', "", "+cmd"),
            Submitter("-2+3", "@SUM(A1)", "Bo"),
        ),
        "submission_4": (Submitter("", "", "a b"),),
    }

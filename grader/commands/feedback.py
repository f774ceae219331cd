"""`grader feedback OUT [--student S]`: each student's feedback as an HTML page with its plots,
from a batch's results, on request (grader/batch/outputs.py; the Markdown and JSON feedback
every batch writes already)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.outputs import write_feedback_html
from grader.batch.store import ResultStore
from grader.errors import EXIT_OK, GraderError


def run(*, out: Path, students: Sequence[str] = ()) -> int:
    store = ResultStore.of_batch(out)
    try:
        results = store.latest()
    finally:
        store.close()
    unknown = sorted(set(students) - {r.student for r in results})
    if unknown:
        raise GraderError(f"{out}: no results for {', '.join(unknown)}")
    pages = write_feedback_html(out / "feedback", results, students)
    print(f"feedback: {len(pages)} HTML page(s) in {out / 'feedback'}")
    return EXIT_OK

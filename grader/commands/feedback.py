"""`grader feedback OUT [--student S]`: each student's feedback, from a batch's results as they
stand now (the written answers reviewed so far graded, the others pending): Markdown and JSON,
as the batch wrote them, and an HTML page with its plots (grader/batch/outputs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.outputs import write_feedback, write_feedback_html
from grader.batch.reviews import written_answer
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
    write_feedback(out / "feedback", results, students)
    pages = write_feedback_html(out / "feedback", results, students)
    print(f"feedback: {len(pages)} student(s), Markdown, JSON and HTML, in {out / 'feedback'}")
    pending = sum(
        1
        for r in results
        if (not students or r.student in students) and written_answer(r.student, r.report)
    )
    if pending:
        print(f"{pending} result(s) hold written answers pending review: grader review {out}")
    return EXIT_OK

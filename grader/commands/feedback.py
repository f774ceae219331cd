"""`grader feedback OUT [--student S]`: each student's feedback, from a batch's results as they
stand now (the written answers reviewed so far graded, the others pending): Markdown and JSON,
as the batch wrote them, and an HTML page with its plots (grader/batch/outputs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.batch.outputs import write_feedback, write_feedback_html, write_nothing_graded
from grader.batch.reviews import written_answer
from grader.batch.store import ResultStore
from grader.batch.view import BatchView
from grader.errors import EXIT_OK, GraderError
from grader.report.gradebook import superseded


def run(*, out: Path, students: Sequence[str] = ()) -> int:
    store = ResultStore.of_batch(out)
    try:
        results = store.latest()
        stored = store.view()
        roster = store.submitters()
    finally:
        store.close()
    # what the batch's last run found: its students (those with nothing graded too), what each
    # handed nothing in for, and its notes on their hand-ins
    view = BatchView.from_json(stored or {})
    everyone = sorted({*view.students, *(r.student for r in results)})
    # a student by their key, or by a submitter's SID, e-mail or name (as batch --student)
    named = {
        name: [
            key
            for key in everyone
            if name == key or any(name in (p.sid, p.email, p.name) for p in roster.get(key, []))
        ]
        for name in students
    }
    unknown = sorted(name for name, keys in named.items() if not keys)
    if unknown:
        raise GraderError(f"{out}: no student {', '.join(unknown)} in this batch")
    chosen = list(dict.fromkeys(k for keys in named.values() for k in keys)) or everyone
    folder = out / "feedback"
    replaced = superseded(everyone, results, roster)
    write_feedback(folder, results, chosen, view.missing, view.notes, replaced)
    write_nothing_graded(folder, chosen, results, view.notes, html=True)
    write_feedback_html(folder, results, chosen, view.missing, view.notes, replaced)
    print(f"feedback: {len(chosen)} student(s), Markdown, JSON and HTML, in {folder}")
    pending = sum(1 for r in results if r.student in chosen and written_answer(r.student, r.report))
    if pending:
        print(f"{pending} result(s) hold written answers pending review: grader review {out}")
    return EXIT_OK

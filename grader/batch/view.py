"""A batch's outputs (gradebook.csv, feedback/, summary.md, performance_scores.csv), written from
its results database and what its last run found there: by `grader batch` at the end of a run,
and again by `grader review` once reviews change the points, so that no output of the batch
still says 'pending' for an answer that was graded."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grader.batch.lanes import baseline_drift, lane_dir
from grader.batch.names import display, note_owner
from grader.batch.outputs import (
    write_feedback,
    write_feedback_html,
    write_gradebook,
    write_nothing_graded,
    write_performance_scores,
    write_summary,
)
from grader.batch.store import ResultStore
from grader.course import Course
from grader.report.gradebook import superseded


@dataclass(frozen=True)
class BatchView:
    """What a batch run found in the submissions folder."""

    students: list[str]
    """Every student key, whether they handed anything in or not."""
    exercises: list[str]
    """The exercises graded, in the course's order."""
    missing: list[tuple[str, str]]
    """(student, exercise) for each exercise a student handed nothing in for."""
    refused: list[str]
    skipped: list[str]
    """Discovery's notes on entries skipped and files not read."""
    notes: list[str]
    """Every note of discovery, 'entry: what was found' (for those with nothing graded)."""
    gpus: list[str]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BatchView:
        fields = {key: list(data.get(key, [])) for key in cls.__dataclass_fields__}
        # [student, exercise]; 'student: exercise' where an older grader wrote the view
        fields["missing"] = [
            tuple(m.rsplit(": ", 1)) if isinstance(m, str) else tuple(m) for m in fields["missing"]
        ]
        return cls(**fields)


_REFUSED = re.compile(r"(?P<student>.*) \((?P<exercise>[^()]*)\): ")
"""A refused entry: 'student (exercise): reason'."""


def carried_over(
    earlier: BatchView, seen: Collection[str], ids: Collection[str], some_students: bool
) -> BatchView:
    """What an earlier run found that this one did not look at again: the exercises it does
    not grade, and, in a run of some students (--student, whose folder may hold only theirs),
    every student it did not find: their rows, what they miss, why theirs were refused, and
    what discovery said of their hand-ins."""

    def kept(student: str, exercise: str | None) -> bool:
        if some_students and student not in seen:
            return True
        return exercise is not None and exercise not in ids

    refused = []
    for entry in earlier.refused:
        match = _REFUSED.match(entry)
        if match and kept(match["student"], match["exercise"]):
            refused.append(entry)
    shown = {display(s) for s in seen}
    said = [
        n
        for n in earlier.notes
        if some_students and note_owner(n.partition(": ")[0], shown) is None
    ]
    return BatchView(
        students=[s for s in earlier.students if kept(s, None)],
        exercises=[],
        missing=[m for m in earlier.missing if kept(*m)],
        refused=refused,
        skipped=[n for n in earlier.skipped if n in said],
        notes=said,
        gpus=[],
    )


def write_outputs(out: Path, course: Course, store: ResultStore, view: BatchView) -> list[str]:
    """Every output of the batch in `out` from `store`'s current results (reviews applied);
    returns the lines on the GPU lanes' baselines."""
    store.record_view(asdict(view))
    results = store.latest()
    roster = store.submitters()
    chosen = [course.find(e) for e in view.exercises]
    write_gradebook(out / "gradebook.csv", view.students, view.exercises, results, roster)
    feedback = out / "feedback"
    pages = any(feedback.glob("*.html"))  # `grader feedback` wrote pages: none goes stale
    # a person's earlier hand-in under another key: its feedback says so; no statistic counts it
    replaced = superseded(view.students, results, roster)
    counting = [r for r in results if (r.student, r.exercise) not in replaced]
    write_feedback(feedback, results, missing=view.missing, said=view.notes, replaced=replaced)
    write_nothing_graded(feedback, view.students, results, view.notes, html=pages)
    if pages:
        write_feedback_html(
            feedback, results, missing=view.missing, said=view.notes, replaced=replaced
        )
    baselines = [line for gpu in view.gpus for line in baseline_drift(lane_dir(out, gpu))]
    write_summary(out / "summary.md", counting, view.missing, baselines, view.refused, view.skipped)
    write_performance_scores(out / "performance_scores.csv", view.students, chosen, results, roster)
    return baselines


def rewrite_outputs(out: Path, course: Course, store: ResultStore) -> bool:
    """The batch's outputs written again as its last run found it; False where the database
    holds no such record (a batch of an older grader): nothing is written then."""
    found = store.view()
    if found is None:
        return False
    write_outputs(out, course, store, BatchView.from_json(found))
    return True

"""`grader batch`: grade every submission in a directory, each in its own child processes, in
parallel, resumably, into a results database, a gradebook, feedback per student and a summary.

Exit status: 0 when the batch ran to its end, whatever the verdicts: a submission that cannot be
graded (a refused zip, a link or pipe for a kernel, an unreadable file) is recorded with 0 points
and the reason, in its feedback and in summary.md, and the others are graded. 2 (one line, no
traceback) when the batch cannot run at all: no such directory, an unreadable
submission_metadata.yml, results from an earlier run without --resume, no sandbox."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from grader.batch.discover import discover
from grader.batch.grade_all import default_jobs, grade_all
from grader.batch.preflight import lane_envs
from grader.batch.secret import load_or_create
from grader.batch.selection import select_work, unknown_students
from grader.batch.store import ResultStore
from grader.batch.view import BatchView, write_outputs
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.report.batch_console import BatchConsole


def run(
    *,
    course: Course,
    submissions: Path,
    out: Path,
    exercises: Sequence[str] = (),
    jobs: int | None = None,
    backend: str = "auto",
    resume: bool = False,
    students: Sequence[str] = (),
    seed: int | None = None,
    gpus: Sequence[str] = (),
    unsafe_no_sandbox: bool = False,
) -> int:
    database = out / "results.sqlite"
    # without --exercise: a folder's earlier runs' exercises (re-grading one student of an ex2
    # batch grades ex2), else every exercise of the course
    before = _graded_before(database)
    new = [e for e in dict.fromkeys(exercises) if before and course.find(e).id not in before]
    if students and new:
        # a new exercise is the whole batch's: every other student would be missing it
        raise GraderError(
            f"--student re-grades in the exercises {out} grades ({', '.join(before)}); "
            f"{', '.join(new)} is not one: grade it for everyone (--exercise {new[0]} --resume) "
            "or into another folder; nothing was graded"
        )
    chosen = (
        [course.find(k) for k in exercises]
        if exercises
        else [e for e in course.exercises if e.id in before] or list(course.exercises)
    )
    if database.exists() and not resume and not students:
        raise GraderError(
            f"{database} exists: pass --resume to carry on, or --student NAME to re-grade one"
        )
    if out.resolve().is_relative_to(submissions.resolve()):
        raise GraderError(
            f"--out {out} is inside {submissions}: the batch would read its own output as a "
            "student's; give a folder outside it"
        )
    foreign = _not_a_batchs(out, database)
    if foreign:
        raise GraderError(
            f"--out {out} holds {foreign}, which no batch wrote: give a new or empty folder, or "
            "a batch's output folder; nothing was written"
        )
    out.mkdir(parents=True, exist_ok=True, mode=0o700)  # students' results: the grader's own
    console = BatchConsole()
    others = [e for e in course.exercises if e.id not in {c.id for c in chosen}]
    # exercises graded into this folder before: a lone kernel is not this run's one exercise's
    graded_too = [e for e in before if e not in {c.id for c in chosen}]
    found, notes = discover(submissions, chosen, out / "work", others, graded_too=graded_too)
    for note in notes:
        console.note(note)
    unknown = unknown_students(found, students)
    if unknown:
        raise GraderError(f"{submissions}: no submission from {', '.join(unknown)}")
    # Native code from students runs only in the sandbox, which never shows it the other
    # submissions, the results or the solutions. No usable backend: nothing is written yet.
    hidden = [p.resolve() for p in (submissions, out, course.root / "solutions")]
    lanes = lane_envs(backend, hidden, out, gpus, unsafe_no_sandbox)
    jobs = jobs or default_jobs(lanes)
    store = ResultStore(database)
    # the run's exercises, recorded before it grades: a run killed before it records what it
    # found (its view) is resumed, without --exercise, with the same exercises
    earlier_view = store.view() or {}
    planned = {*earlier_view.get("exercises", []), *(c.id for c in chosen)}
    store.record_view(
        {**earlier_view, "exercises": [e.id for e in course.exercises if e.id in planned]}
    )
    secret = load_or_create(out)
    work = select_work(found, students, store.graded())
    store.record_submitters({s.student: s.submitters for s in found if s.submitters})
    for student, exercise in store.set_aside(work.absent):
        console.note(f"{student}: {exercise} is no longer handed in: its result is set aside")
    run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
    to_refuse = sum(s.error is not None for s, _ in work.todo)
    console.plan(len(work.todo), to_refuse, jobs, len(work.missing), len(work.refused))
    grade_all(
        work.todo, store=store, run_id=run_id, secret=secret, seed=seed, backend=backend,
        lanes=lanes, jobs=jobs, console=console,
    )  # fmt: skip
    skipped = [note for note in notes if ": skipped: " in note or "; not read: " in note]
    ids, earlier = {e.id for e in chosen}, store.view() or {}
    # an earlier run stopped before it recorded its view still has its results' exercises
    current = set(store.current_pairs())
    graded = {exercise for _, exercise in current}
    view = BatchView(
        students=sorted({s.student for s in found}),
        # a run of other exercises (--resume, --student) keeps those graded before
        exercises=[
            e.id for e in course.exercises if e.id in {*ids, *graded, *earlier.get("exercises", [])}
        ],
        missing=[  # not one with a result that stands (a kernel not read sets nothing aside)
            *(m for m in work.missing if tuple(m.rsplit(": ", 1)) not in current),
            *(m for m in earlier.get("missing", []) if m.rsplit(": ", 1)[-1] not in ids),
        ],
        refused=work.refused,
        skipped=skipped,
        notes=notes,
        gpus=list(gpus),
    )
    try:
        baselines = write_outputs(out, course, store, view)
    finally:
        store.close()
    for line in baselines:
        console.baseline(line)
    console.done(out)
    return EXIT_OK


_WRITES = frozenset({"work", "lanes", "secret.key", "feedback", "gradebook.csv", "summary.md",
                     "performance_scores.csv", "results.sqlite", "results.sqlite-wal",
                     "results.sqlite-shm"})  # fmt: skip
"""What a batch writes in its output folder (a run stopped early may have left some of them)."""
_OUTPUTS = frozenset({"feedback", "gradebook.csv", "summary.md", "performance_scores.csv"})


def _not_a_batchs(out: Path, database: Path) -> str:
    """The first entry of `out` that a batch would not have written there ('' where none): any
    name a batch does not write, or its outputs without its results database (a user's own
    gradebook.csv, say)."""
    try:
        names = sorted(entry.name for entry in os.scandir(out))
    except (FileNotFoundError, NotADirectoryError):
        return ""
    foreign = [n for n in names if n not in _WRITES]
    if not foreign and not database.exists():
        foreign = [n for n in names if n in _OUTPUTS]
    return foreign[0] if foreign else ""


def _graded_before(database: Path) -> list[str]:
    """The exercises a batch's earlier runs graded into this folder (none for a new one)."""
    if not database.exists():
        return []
    store = ResultStore(database)
    try:
        view = store.view() or {}
        return sorted({*view.get("exercises", []), *(e for _, e in store.current_pairs())})
    finally:
        store.close()

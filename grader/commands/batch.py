"""`grader batch`: grade every submission in a directory, each in its own child processes, in
parallel, resumably, into a results database, a gradebook, feedback per student and a summary.

Exit status: 0 when the batch ran to its end, whatever the verdicts: a submission that cannot be
graded (a refused zip, a link or pipe for a kernel, an unreadable file) is recorded with 0 points
and the reason, in its feedback and in summary.md, and the others are graded. 2 (one line, no
traceback) when the batch cannot run at all: no such directory, an unreadable
submission_metadata.yml, results from an earlier run without --resume, no sandbox."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from grader.batch.discover import discover
from grader.batch.grade_all import default_jobs, grade_all, lane_children
from grader.batch.preflight import start_preflight
from grader.batch.secret import load_or_create
from grader.batch.selection import select_work, unknown_students
from grader.batch.store import ResultStore
from grader.batch.view import BatchView, carried_over, write_outputs
from grader.course import Course, Exercise
from grader.errors import EXIT_CHECK_FAILED, EXIT_OK, GraderError
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
    _check_out(out, submissions, database, resume=resume or bool(students))
    # the folder's earlier runs, read once: their view and their current results
    store = ResultStore(database) if database.exists() else None
    created = not out.exists()
    children = ExitStack()
    try:
        earlier = (store.view() or {}) if store else {}
        done = store.graded() if store else set()
        before = sorted({*earlier.get("exercises", []), *(e for _, e, _ in done)})
        chosen = _chosen(course, out, exercises, before, students)
        out.mkdir(parents=True, exist_ok=True, mode=0o700)  # students' results: the grader's own
        console = BatchConsole()
        ids = {c.id for c in chosen}
        others = [e for e in course.exercises if e.id not in ids]
        # exercises graded into this folder before: a lone kernel is not this run's one's
        graded_too = [e for e in before if e not in ids]
        # Native code from students runs only in the sandbox, which never shows it the other
        # submissions, the results or the solutions. No usable backend: nothing is written yet.
        hidden = [p.resolve() for p in (submissions, out, course.root / "solutions")]
        preflight = start_preflight(backend, hidden, out, gpus, unsafe_no_sandbox)
        children.callback(preflight.close)
        lanes = preflight.lanes
        jobs = jobs or default_jobs(lanes)
        # the grading children start now, while the GPU probe answers and the submissions are
        # read; in a folder graded before (--resume, --student), once it is known that
        # something is left to grade
        if not done:
            children.enter_context(lane_children(lanes, jobs, backend))
        preflight.confirm()
        found, notes = discover(submissions, chosen, out / "work", others, graded_too=graded_too)
        for note in notes:
            console.note(note)
        unknown = unknown_students(found, students)
        if unknown:
            keys = {s.student for s in found}
            stems = [Path(n).stem for n in unknown if Path(n).stem in keys and Path(n).suffix]
            hint = ""
            if stems:
                hint = f" (a student is named without the file's extension: {stems[0]})"
            raise GraderError(f"{submissions}: no submission from {', '.join(unknown)}{hint}")
        store = store or ResultStore(database)
        # the run's exercises, recorded before it grades: a run killed before it records what
        # it found (its view) is resumed, without --exercise, with the same exercises
        graded = [e.id for e in course.exercises if e.id in {*ids, *before}]
        store.record_view({**earlier, "exercises": graded})
        secret = load_or_create(out)
        work = select_work(found, students, done)
        if done and work.todo:
            children.enter_context(lane_children(lanes, jobs, backend))
        store.record_submitters({s.student: s.submitters for s in found if s.submitters})
        for student, exercise in store.set_aside(work.absent):
            console.note(f"{student}: {exercise} is no longer handed in: its result is set aside")
        run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
        seen = {s.student for s in found}
        # what this run did not look at again stands: other exercises', other students'
        kept = carried_over(BatchView.from_json(earlier), seen, ids, bool(students))
        missing, refused = [*work.missing, *kept.missing], [*work.refused, *kept.refused]
        to_refuse = sum(s.error is not None for s, _ in work.todo)
        console.plan(len(work.todo), to_refuse, jobs, len(missing), len(refused))
        grade_all(
            work.todo, store=store, run_id=run_id, secret=secret, seed=seed, backend=backend,
            lanes=lanes, jobs=jobs, console=console,
        )  # fmt: skip
        children.close()
        skipped = [note for note in notes if ": skipped: " in note or "; not read: " in note]
        view = BatchView(
            students=sorted(seen | set(kept.students)),
            exercises=graded,  # a run of other exercises (--resume, --student) keeps those
            missing=missing,
            refused=refused,
            skipped=list(dict.fromkeys([*skipped, *kept.skipped])),
            notes=list(dict.fromkeys([*notes, *kept.notes])),
            gpus=list(gpus),
        )
        baselines = write_outputs(out, course, store, view)
    except GraderError:
        if created and not database.exists():  # stopped before grading: nothing left behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        children.close()
        if store is not None:
            store.close()
    for line in baselines:
        console.baseline(line)
    console.done(out)
    if students and not work.todo:  # a re-grade that found nothing to grade did not do its job
        console.nothing_graded(list(students))
        return EXIT_CHECK_FAILED
    if console.ungraded:  # a batch that left gradings without a verdict did not do its job
        console.left_ungraded()
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _check_out(out: Path, submissions: Path, database: Path, *, resume: bool) -> None:
    """Refuses an output folder the batch must not write into."""
    if database.exists() and not resume:
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


def _chosen(
    course: Course,
    out: Path,
    exercises: Sequence[str],
    before: Sequence[str],
    students: Sequence[str],
) -> list[Exercise]:
    """The exercises this run grades: those --exercise names; without it, the folder's earlier
    runs' exercises (re-grading one student of an ex2 batch grades ex2), else every exercise."""
    new = [e for e in dict.fromkeys(exercises) if before and course.find(e).id not in before]
    if students and new:
        # a new exercise is the whole batch's: every other student would be missing it
        raise GraderError(
            f"--student re-grades in the exercises {out} grades ({', '.join(before)}); "
            f"{', '.join(new)} is not one: grade it for everyone (--exercise {new[0]} --resume) "
            "or into another folder; nothing was graded"
        )
    if exercises:
        return [course.find(k) for k in exercises]
    return [e for e in course.exercises if e.id in before] or list(course.exercises)


_WRITES = frozenset({"work", "lanes", "secret.key", "feedback", "gradebook.csv", "summary.md",
                     "performance_scores.csv", "results.sqlite", "results.sqlite-wal",
                     "results.sqlite-shm", "results.sqlite-journal"})  # fmt: skip
"""What a batch writes in its output folder (a run stopped early may have left some of them: a
run killed while it created the results, before they turned to WAL, leaves SQLite's rollback
journal, which the next run's SQLite needs to roll that back)."""
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

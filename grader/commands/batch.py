"""grader batch: grade every submission in a directory, each in its own child processes, in
parallel, resumably, into a results database, a gradebook, feedback per student and a summary."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from grader import sandbox
from grader.batch.discover import Submission, discover
from grader.batch.lanes import baseline_drift, child_env, lane_dir
from grader.batch.outputs import (
    write_feedback,
    write_gradebook,
    write_performance_scores,
    write_summary,
)
from grader.batch.run_one import grade_submission
from grader.batch.secret import load_or_create, mixed_seed
from grader.batch.store import ResultStore, source_hash
from grader.course import Course
from grader.errors import EXIT_OK, GraderError


def _digest(submission: Submission) -> str:
    assert submission.kernel is not None
    answers = (
        submission.answers.read_bytes()
        if submission.answers and submission.answers.is_file()
        else b""
    )
    return source_hash(submission.kernel.read_bytes(), answers)


def _gpu_present() -> bool:
    """Whether an NVIDIA GPU's device files exist (the parent never opens a CUDA context; a child
    that falls back to the CPU backend still refuses to run without the sandbox)."""
    return Path("/dev/nvidiactl").exists() or any(Path("/dev").glob("nvidia[0-9]*"))


def run(
    course: Course,
    submissions_dir: Path,
    out: Path,
    keys: Sequence[str],
    jobs: int | None,
    backend: str,
    resume: bool,
    students: Sequence[str],
    seed: int | None,
    gpus: Sequence[str] = (),
    unsafe_no_sandbox: bool = False,
) -> int:
    exercises = [course.find(k) for k in keys] if keys else list(course.exercises)
    database = out / "results.sqlite"
    if database.exists() and not resume and not students:
        raise GraderError(
            f"{database} exists: pass --resume to carry on, or --student NAME to re-grade one"
        )
    out.mkdir(parents=True, exist_ok=True)
    console = Console(stderr=True)
    found, notes = discover(submissions_dir, exercises, out / "work")
    for note in notes:
        console.print(f"[dim]{note}[/dim]")
    store = ResultStore(database)
    secret = load_or_create(out)
    done = store.graded()
    todo: list[tuple[Submission, str]] = []
    missing: list[str] = []
    for submission in found:
        if students and submission.student not in students:
            continue
        if submission.kernel is None:
            missing.append(f"{submission.student}: {submission.exercise.id}")
            continue
        digest = _digest(submission)
        key = (submission.student, submission.exercise.id, digest)
        if key in done and not students:
            continue  # complete already (--resume), with this very source
        todo.append((submission, digest))
    run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
    # Native code from students runs only in the sandbox, which never shows it the other
    # submissions, the results or the solutions.
    on_cpu = backend == "cpu" or (backend == "auto" and not _gpu_present())
    if on_cpu and sandbox.available() is None and not unsafe_no_sandbox:
        raise GraderError(
            "batch grading on the CPU backend runs students' code natively and needs the sandbox "
            "(apt-get install bubblewrap); --unsafe-no-sandbox accepts the risk"
        )
    guarded = {
        sandbox.SANDBOX_ENV: "off" if unsafe_no_sandbox else "required",
        sandbox.HIDE_ENV: os.pathsep.join(str(p.resolve()) for p in (submissions_dir, out)),
    }
    # One lane per GPU: gradings are spread over them; each lane's lock keeps timing exclusive.
    lanes = [{**guarded, **child_env(out, gpu)} for gpu in gpus] or [guarded]
    jobs = jobs or ((os.cpu_count() or 1) if backend == "cpu" else max(1, 2 * len(lanes)))
    console.print(f"{len(todo)} grading(s) to do, {jobs} at a time; {len(missing)} missing")
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress, ThreadPoolExecutor(jobs) as pool:
        task = progress.add_task("grading", total=len(todo))
        futures = {
            pool.submit(
                grade_submission,
                s,
                mixed_seed(secret, seed, s.student, s.exercise.id),
                backend,
                lanes[i % len(lanes)],
            ): (s, d)
            for i, (s, d) in enumerate(todo)
        }
        for future in as_completed(futures):
            submission, digest = futures[future]
            try:
                report = future.result()
            except GraderError as exc:
                console.print(f"[red]{exc}[/red]")
            else:
                store.record(run_id, submission.student, submission.exercise.id, digest, report)
            progress.advance(task)
    results = store.latest()
    store.close()
    all_students = sorted({s.student for s in found})
    exercise_ids = [e.id for e in exercises]
    write_gradebook(out / "gradebook.csv", all_students, exercise_ids, results)
    write_feedback(out / "feedback", results)
    baselines = [line for gpu in gpus for line in baseline_drift(lane_dir(out, gpu))]
    for line in baselines:
        console.print(f"[yellow]{line}[/yellow]" if "drifted" in line else f"[dim]{line}[/dim]")
    write_summary(out / "summary.md", results, missing, baselines)
    write_performance_scores(out / "performance_scores.csv", all_students, exercise_ids, results)
    console.print(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}")
    return EXIT_OK

"""grader batch: grade every submission in a directory, each in its own child processes, in
parallel, resumably, into a results database, a gradebook, feedback per student and a summary.

Exit status: 0 when the batch ran to its end, whatever the verdicts: a submission that cannot be
graded (a refused zip, a link or pipe for a kernel, an unreadable file) is recorded with 0 points
and the reason, in its feedback and in summary.md, and the others are graded. 2 (one line, no
traceback) when the batch cannot run at all: no such directory, an unreadable
submission_metadata.yml, results from an earlier run without --resume, no sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.markup import escape
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
from grader.bounded_read import read_bounded
from grader.course import Course
from grader.errors import EXIT_OK, GraderError
from grader.grading import MAX_ANSWERS_BYTES
from grader.source import MAX_SOURCE_BYTES


def _digest(submission: Submission) -> tuple[Submission, str]:
    """The submission (refused, with the reason, where its files cannot be read) and the hash
    of what is graded: its kernel and answers, read bounded and never through a link or FIFO;
    for a refused one, its reason, so that --resume does not redo it until it changes."""
    kernel = submission.kernel
    if submission.error is None and kernel is not None:
        try:
            text = read_bounded(kernel, _limit(kernel), kernel.name)
        except FileNotFoundError:
            submission = replace(submission, error=f"{kernel.name}: removed while grading")
        except GraderError as exc:
            submission = replace(submission, error=str(exc))
        else:
            return submission, source_hash(text, _answers_bytes(submission.answers))
    return submission, source_hash(b"refused", str(submission.error).encode())


def _limit(kernel: Path) -> int:
    return 16 * MAX_SOURCE_BYTES if kernel.suffix == ".ipynb" else MAX_SOURCE_BYTES


def _answers_bytes(answers: Path | None) -> bytes:
    """The answers file's bytes for the hash (b"" when absent; its reason when unusable: the
    grading reports it)."""
    if answers is None:
        return b""
    try:
        return read_bounded(answers, MAX_ANSWERS_BYTES)
    except FileNotFoundError:
        return b""
    except GraderError as exc:
        return f"unreadable: {exc}".encode()


def _wanted(submission: Submission, students: Sequence[str]) -> bool:
    """Whether --student names this submission: by its key, or by a submitter's SID, e-mail
    or name."""
    names = {submission.student}
    for person in submission.submitters:
        names |= {person.sid, person.email, person.name}
    return not students or not names.isdisjoint(students)


def _gpu_present() -> bool:
    """Whether an NVIDIA GPU's device files exist (the parent never opens a CUDA context; a child
    that falls back to the CPU backend still refuses to run without the sandbox)."""
    return Path("/dev/nvidiactl").exists() or any(Path("/dev").glob("nvidia[0-9]*"))


_GPU_PROBE = """
from grader.backends.gpu import GpuBackend, GpuUnavailableError
try:
    GpuBackend()
except GpuUnavailableError as exc:
    print(str(exc).splitlines()[0] if str(exc) else "no usable CUDA GPU")
"""


def _gpu_unusable() -> str | None:
    """Why no GPU is usable here (asked of a child: the parent never opens a CUDA context), or
    None when one is."""
    done = subprocess.run(
        [sys.executable, "-c", _GPU_PROBE], capture_output=True, text=True, timeout=120,
        check=False, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["the GPU probe failed"])[-1]
    return done.stdout.strip() or None


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
    out.mkdir(parents=True, exist_ok=True, mode=0o700)  # students' results: the grader's own
    console = Console(stderr=True)
    found, notes = discover(submissions_dir, exercises, out / "work")
    for note in notes:  # names come from students: never read as markup
        console.print(escape(note), style="dim")
    store = ResultStore(database)
    secret = load_or_create(out)
    done = store.graded()
    todo: list[tuple[Submission, str]] = []
    missing: list[str] = []
    refused: list[str] = []
    for submission in found:
        if not _wanted(submission, students):
            continue
        if submission.kernel is None and submission.error is None:
            missing.append(f"{submission.student}: {submission.exercise.id}")
            continue
        submission, digest = _digest(submission)
        if submission.error is not None:
            refused.append(f"{submission.student} ({submission.exercise.id}): {submission.error}")
        key = (submission.student, submission.exercise.id, digest)
        if key in done and not students:
            continue  # complete already (--resume), with this very source
        todo.append((submission, digest))
    run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
    # Native code from students runs only in the sandbox, which never shows it the other
    # submissions, the results or the solutions.
    if backend == "gpu":
        why = _gpu_unusable()
        if why:  # before anyone is graded: one line, not "not graded" for every student
            raise GraderError(f"--backend gpu: not usable here: {why}")
    on_cpu = backend == "cpu" or (backend == "auto" and not _gpu_present())
    hidden = [p.resolve() for p in (submissions_dir, out, course.root / "solutions")]
    guarded = {
        sandbox.SANDBOX_ENV: "off" if unsafe_no_sandbox else "required",
        sandbox.HIDE_ENV: os.pathsep.join(str(p) for p in hidden),
    }
    if on_cpu and not unsafe_no_sandbox:
        # before anyone is graded: no isolation here (or, without bubblewrap, files others can
        # read) is one line, not an error recorded for every student
        sandbox.mode(hidden)
    # One lane per GPU: gradings are spread over them; each lane's lock keeps timing exclusive.
    lanes = [{**guarded, **child_env(out, gpu)} for gpu in gpus] or [guarded]
    jobs = jobs or ((os.cpu_count() or 1) if backend == "cpu" else max(1, 2 * len(lanes)))
    console.print(
        f"{len(todo)} grading(s) to do, {jobs} at a time; {len(missing)} missing, "
        f"{len(refused)} refused (see summary.md)"
    )
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress, ThreadPoolExecutor(jobs) as pool:
        task = progress.add_task("grading", total=len(todo))
        futures = {
            pool.submit(
                grade_submission,
                s,
                mixed_seed(secret, seed, s.student, s.exercise.id, d),
                backend,
                lanes[i % len(lanes)],
            ): (s, d)
            for i, (s, d) in enumerate(todo)
        }
        for future in as_completed(futures):
            submission, digest = futures[future]
            try:
                report = future.result()
            except Exception as exc:  # one grading never stops the batch; --resume retries it
                why = " ".join(str(exc).split())[:300] or type(exc).__name__
                console.print(
                    escape(f"{submission.student} ({submission.exercise.id}): not graded: {why}"),
                    style="red",
                )
            else:
                try:
                    store.record(run_id, submission.student, submission.exercise.id, digest, report)
                except GraderError:  # the disk is full, say: what is recorded stays, stop here
                    pool.shutdown(wait=False, cancel_futures=True)
                    store.close()
                    raise
            progress.advance(task)
    results = store.latest()
    store.close()
    all_students = sorted({s.student for s in found})
    roster = {s.student: s.submitters for s in found}
    exercise_ids = [e.id for e in exercises]
    write_gradebook(out / "gradebook.csv", all_students, exercise_ids, results, roster)
    write_feedback(out / "feedback", results)
    baselines = [line for gpu in gpus for line in baseline_drift(lane_dir(out, gpu))]
    for line in baselines:
        console.print(escape(line), style="yellow" if "drifted" in line else "dim")
    write_summary(out / "summary.md", results, missing, baselines, refused)
    write_performance_scores(
        out / "performance_scores.csv", all_students, exercise_ids, results, roster
    )
    console.print(escape(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}"))
    return EXIT_OK

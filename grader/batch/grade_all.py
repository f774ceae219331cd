"""Grading a batch's work, `jobs` at a time over the GPU lanes, each grading in its own child
processes with its own seed, every result recorded as it comes. One grading that fails never
stops the batch (--resume retries it); a store that cannot write (a full disk) does."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import nullcontext

from grader.batch.discover import Submission
from grader.batch.run_one import grade_submission
from grader.batch.secret import mixed_seed
from grader.batch.store import ResultStore
from grader.children import serving
from grader.errors import GraderError
from grader.isolation import GradingStoppedError, allow_gradings, stop_gradings
from grader.lane_lock import LANE_ENV
from grader.report.batch_console import BatchConsole
from grader.results import Report

JOBS_PER_GPU = 8
"""Gradings at a time per GPU lane unless --jobs says otherwise (at most one per core): of the
counts tried with benchmarks/batch_throughput.py on an H200 host of 16 cores, 8 graded the most
(103-113 submission-exercises a minute, against 48 with 4, 96 with 12 and 83 with 16)."""


def default_jobs(lanes: Sequence[dict[str, str]]) -> int:
    """Gradings at a time: JOBS_PER_GPU per GPU lane, else one per core (the CPU backend)."""
    cores = os.cpu_count() or 1
    gpus = sum(LANE_ENV in lane for lane in lanes)
    return max(1, min(cores, JOBS_PER_GPU * gpus)) if gpus else cores


def grade_all(
    todo: Sequence[tuple[Submission, str]],
    *,
    store: ResultStore,
    run_id: str,
    secret: bytes,
    seed: int | None,
    backend: str,
    lanes: Sequence[dict[str, str]],
    jobs: int,
    console: BatchConsole,
) -> None:
    """Grade each (submission, digest) of `todo` and record its report in `store`. On GPU
    lanes, grading children serve submission after submission (children.serving), keeping their
    CUDA context; on the CPU every grading has fresh ones."""
    on_lanes = any(LANE_ENV in lane for lane in lanes)
    with (
        console.progress(len(todo)) as advance,
        serving() if on_lanes else nullcontext(),
        ThreadPoolExecutor(jobs) as pool,
    ):
        futures: dict[Future[Report], tuple[Submission, str]] = {}
        pending: set[Future[Report]] = set()
        try:
            _submit(futures, pending, pool, todo, secret, seed, backend, lanes)
            for future in as_completed(futures):
                pending.discard(future)
                _record(future, futures[future], store, run_id, console, pool)
                advance()
        except KeyboardInterrupt:
            # Ctrl-C: nothing more starts, what runs is stopped at once (no verdict), and every
            # grading that finished is kept
            stop_gradings()
            pool.shutdown(wait=True, cancel_futures=True)
            allow_gradings()
            for future in pending:
                if future.done() and not future.cancelled() and future.exception() is None:
                    _record(future, futures[future], store, run_id, console, pool)
            raise BatchInterruptedError(store.count(run_id), len(todo)) from None


def _submit(
    futures: dict[Future[Report], tuple[Submission, str]],
    pending: set[Future[Report]],
    pool: ThreadPoolExecutor,
    todo: Sequence[tuple[Submission, str]],
    secret: bytes,
    seed: int | None,
    backend: str,
    lanes: Sequence[dict[str, str]],
) -> None:
    """Queue every grading, each future noted as soon as it exists (an interrupt may come
    while they are queued)."""
    for i, (s, d) in enumerate(todo):
        future = pool.submit(
            grade_submission,
            s,
            mixed_seed(secret, seed, s.student, s.exercise.id, d),
            backend,
            lanes[i % len(lanes)],
        )
        futures[future] = (s, d)
        pending.add(future)


class BatchInterruptedError(GraderError):
    """Ctrl-C during a batch: what was recorded stays; --resume grades the rest."""

    def __init__(self, recorded: int, total: int) -> None:
        super().__init__(
            f"interrupted: {recorded} of {total} grading(s) of this run are recorded and kept; "
            "run the same command with --resume to grade the rest",
            exit_code=130,
        )


def _record(
    future: Future[Report],
    work: tuple[Submission, str],
    store: ResultStore,
    run_id: str,
    console: BatchConsole,
    pool: ThreadPoolExecutor,
) -> None:
    submission, digest = work
    try:
        report = future.result()
    except GradingStoppedError:
        return  # no verdict: --resume grades it again
    except Exception as exc:  # one grading never stops the batch; --resume retries it
        console.not_graded(submission.student, submission.exercise.id, exc)
        return
    try:
        store.record(
            run_id,
            submission.student,
            submission.exercise.id,
            digest,
            report,
            submission.submitted_at,
            submission.time_source or "files",
        )
    except GraderError:  # the disk is full, say: what is recorded stays, stop here
        pool.shutdown(wait=False, cancel_futures=True)
        store.close()
        raise

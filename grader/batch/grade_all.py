"""Grading a batch's work, `jobs` at a time over the GPU lanes, each grading in its own child
processes with its own seed, every result recorded as it comes. One grading that fails never
stops the batch (--resume retries it); a store that cannot write (a full disk) does."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext

from grader.batch.discover import Submission
from grader.batch.run_one import grade_submission
from grader.batch.secret import mixed_seed
from grader.batch.store import ResultStore
from grader.children import serving
from grader.errors import GraderError
from grader.lane_lock import LANE_ENV
from grader.report.batch_console import BatchConsole

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
                console.not_graded(submission.student, submission.exercise.id, exc)
            else:
                try:
                    store.record(run_id, submission.student, submission.exercise.id, digest, report)
                except GraderError:  # the disk is full, say: what is recorded stays, stop here
                    pool.shutdown(wait=False, cancel_futures=True)
                    store.close()
                    raise
            advance()

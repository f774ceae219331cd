"""Grading a batch's work, `jobs` at a time over the GPU lanes, each grading in its own child
processes with its own seed, every result recorded as it comes. One grading that fails never
stops the batch (--resume retries it); a store that cannot write (a full disk) does."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from functools import partial

from grader.batch.run_one import start_submission
from grader.batch.secret import mixed_seed
from grader.batch.store import ResultStore
from grader.batch.student_folder import Submission
from grader.children import serving, warm
from grader.errors import GraderError
from grader.grading import Deferred
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


SPARE_CHILDREN = 2
"""Serving children kept started beyond those at work, per lane: a kernel that loses its CUDA
context loses its child, and its grading goes on in a fresh one for each check after it, which
need not wait for that child's start-up (a second on a GPU). Measured on an H100, three such
submissions of 80 took 7.5 to 11 s each without spares and 4 to 11 s with them: start-up is not
all of it (ending the child whose context broke is waited for too)."""


@contextmanager
def lane_children(lanes: Sequence[dict[str, str]], jobs: int, backend: str) -> Iterator[None]:
    """Serving children for the block (children.serving), each lane's started at once: they
    start while the submissions are read, and each grades submission after submission (on a
    GPU keeping its CUDA context; on the CPU, where a child's start-up was half of a small
    grading's time, keeping Python and the toolchain's probes). Spares only on GPU lanes: on
    the CPU a child never loses its backend to a kernel (the kernel runs in a program of its
    own), and every core is busy grading already."""
    on_gpus = any(LANE_ENV in lane for lane in lanes)
    with serving(SPARE_CHILDREN if on_gpus else 0):
        for lane in lanes:
            warm(backend, lane, -(-jobs // len(lanes)))
        yield


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
    lanes (inside `lane_children`), grading children serve submission after submission,
    keeping their CUDA context, and each lane starts every grading's correctness checks first,
    then the timed checks (which take the GPU alone, in turn with the correctness runs still
    going), so that timers do not wait behind a queue of correctness runs; on the CPU every
    grading runs whole."""
    on_lanes = any(LANE_ENV in lane for lane in lanes)
    with console.progress(len(todo)) as advance, ThreadPoolExecutor(jobs) as pool:
        run = _Run(pool, store, run_id, console)
        try:
            for i, (s, d) in enumerate(todo):
                lane = i % len(lanes)
                seeded = mixed_seed(secret, seed, s.student, s.exercise.id, d)
                call = partial(start_submission, s, seeded, backend, lanes[lane], on_lanes)
                run.add((s, d), lane, call)
            while run.pending:
                finished, run.pending = wait(run.pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    if run.took(future):
                        advance()
        except KeyboardInterrupt:
            # Ctrl-C: nothing more starts, what runs is stopped at once (no verdict), and every
            # grading that finished is kept
            stop_gradings()
            pool.shutdown(wait=True, cancel_futures=True)
            allow_gradings()
            run.keep_finished()
            raise BatchInterruptedError(store.count(run_id), len(todo)) from None


Work = tuple[Submission, str]
"""A submission and the digest of its files."""


class _Run:
    """The gradings of a batch in flight: on each lane, every grading's first part (all but its
    timed checks), then the timed parts held back until every first part of the lane has
    started: the lane's lock lets each timer in between the correctness runs still going (a
    grading whose kernel keeps losing its context, say), on a machine gone mostly quiet."""

    def __init__(
        self, pool: ThreadPoolExecutor, store: ResultStore, run_id: str, console: BatchConsole
    ) -> None:
        self.pool, self.store, self.run_id, self.console = pool, store, run_id, console
        self.pending: set[Future[Report | Deferred]] = set()
        self.work: dict[Future[Report | Deferred], tuple[Work, int]] = {}
        self.unstarted: dict[int, int] = {}
        self.counting = threading.Lock()
        self.held: dict[int, list[tuple[Deferred, Work]]] = {}

    def add(self, work: Work, lane: int, call: Callable[[], Report | Deferred]) -> None:
        """Queue a grading's first part, noted as soon as it exists (an interrupt may come
        while it is queued)."""

        def first_part() -> Report | Deferred:
            with self.counting:
                self.unstarted[lane] -= 1
            return call()

        with self.counting:
            self.unstarted[lane] = self.unstarted.get(lane, 0) + 1
        self._submit(work, lane, first_part)

    def _submit(
        self, work: Work, lane: int, call: Callable[[], Report | Deferred]
    ) -> Future[Report | Deferred]:
        future = self.pool.submit(call)
        self.work[future] = (work, lane)
        self.pending.add(future)
        return future

    def took(self, future: Future[Report | Deferred]) -> bool:
        """Take a finished call: record its report, or hold it where it stopped before its
        timed checks; returns whether a grading ended (recorded, or not graded)."""
        work, lane = self.work[future]
        outcome = self._outcome(future, work)
        if isinstance(outcome, Deferred):
            self.held.setdefault(lane, []).append((outcome, work))
        elif outcome is not None:
            self._record(work, outcome)
        with self.counting:
            all_started = self.unstarted[lane] == 0
        if all_started:  # no correctness run of the lane is left to start: time
            for deferred, waiting in self.held.pop(lane, []):
                self._submit(waiting, lane, deferred.finish)
        return not isinstance(outcome, Deferred)

    def _outcome(self, future: Future[Report | Deferred], work: Work) -> Report | Deferred | None:
        submission, _ = work
        try:
            return future.result()
        except GradingStoppedError:
            return None  # no verdict: --resume grades it again
        except Exception as exc:  # one grading never stops the batch; --resume retries it
            self.console.not_graded(submission.student, submission.exercise.id, exc)
            return None

    def _record(self, work: Work, report: Report) -> None:
        submission, digest = work
        try:
            self.store.record(
                self.run_id,
                submission.student,
                submission.exercise.id,
                digest,
                report,
                submission.submitted_at,
                submission.time_source or "files",
            )
        except GraderError:  # the disk is full, say: what is recorded stays, stop here
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.store.close()
            raise

    def keep_finished(self) -> None:
        """After an interrupt: record every grading that finished whole."""
        for future in self.pending:
            if future.done() and not future.cancelled() and future.exception() is None:
                outcome = future.result()
                if isinstance(outcome, Report):
                    self._record(self.work[future][0], outcome)


class BatchInterruptedError(GraderError):
    """Ctrl-C during a batch: what was recorded stays; --resume grades the rest."""

    def __init__(self, recorded: int, total: int) -> None:
        super().__init__(
            f"interrupted: {recorded} of {total} grading(s) of this run are recorded and kept; "
            "run the same command with --resume to grade the rest",
            exit_code=130,
        )

"""Where a batch's wall time goes: the class of benchmarks/batch_throughput.py, graded in this
process (`grader batch --gpus 0 --backend gpu`, or `--cpu` for the CPU backend), with the start
and end of each grading's first part (compile, correctness) and of its timed part.

    python benchmarks/batch_timeline.py [--students 40] [--jobs 8] [--cpu]

Prints one row per part (start s, end s, took s, part, student, exercise, outcome, kind), then
the span of the first parts and of the timed parts; results/batch_timeline.txt is one run."""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from batch_throughput import generate

import grader.batch.grade_all as grade_all
from grader.cli import main as grader_main
from grader.grading import Deferred

Row = tuple[float, float, str, str, str, str]


def _traced(rows: list[Row], began: list[float]) -> None:
    """Record each first part (start_submission) and timed part (Deferred.finish) in `rows`."""
    lock = threading.Lock()
    start_submission = grade_all.start_submission
    finish = Deferred.finish

    def first(submission: Any, *args: Any) -> Any:
        start = time.perf_counter() - began[0]
        outcome = start_submission(submission, *args)
        end = time.perf_counter() - began[0]
        with lock:
            row = (submission.student, submission.exercise.id, type(outcome).__name__)
            rows.append((start, end, "first", *row))
        return outcome

    def timed(self: Deferred) -> Any:
        start = time.perf_counter() - began[0]
        report = finish(self)
        with lock:
            rows.append((start, time.perf_counter() - began[0], "timed", "", self.exercise.id, ""))
        return report

    grade_all.start_submission = first  # type: ignore[assignment]
    Deferred.finish = timed  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--cpu", action="store_true", help="the CPU backend, no GPU lane")
    args = parser.parse_args()
    rows: list[Row] = []
    began = [time.perf_counter()]
    _traced(rows, began)
    with tempfile.TemporaryDirectory(prefix="grader-batch-timeline-") as scratch:
        root = Path(scratch) / "class"
        root.mkdir()
        kinds = generate(root, args.students)
        backend = ["--backend", "cpu"] if args.cpu else ["--gpus", "0", "--backend", "gpu"]
        argv = ["batch", str(root), "--out", str(Path(scratch) / "out"), "--exercise", "ex1"]
        argv += ["--exercise", "ex4", *backend, "--jobs", str(args.jobs), "--seed", "7"]
        began[0] = time.perf_counter()
        status = grader_main(argv)
        wall = time.perf_counter() - began[0]
    print(f"rc {status} wall {wall:.2f} s, {len(rows)} parts")
    for start, end, part, student, exercise, outcome in sorted(rows):
        kind = kinds.get(student, "")
        print(
            f"{start:7.2f} {end:7.2f} {end - start:6.2f} {part:5} {student:5} {exercise} "
            f"{outcome:9} {kind}"
        )
    for part in ("first", "timed"):
        spans = [(start, end) for start, end, kind, *_ in rows if kind == part]
        if spans:
            low, high = min(s for s, _ in spans), max(e for _, e in spans)
            total = sum(e - s for s, e in spans)
            print(f"{part} parts: {low:.2f}-{high:.2f}, sum {total:.1f}")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Entry point of the grading child: `python -m grader.worker FD BACKEND [--serve]` reads a Job
(JSON) from stdin and writes its events (grader/events.py: length-prefixed JSON) to file
descriptor FD; stdout is left to the kernel's printf.

With --serve the child grades job after job, each a frame on stdin, ending each with a
FinishedEvent: a batch lane keeps its CUDA context (and Python, CuPy) across submissions. It
takes another job only where its backend recycles cleanly (a GPU whose context is healthy and
whose memory is all given back); otherwise it exits, and the parent starts a fresh child."""

from __future__ import annotations

import json
import os
import sys
from typing import BinaryIO

from grader.backends.base import Backend
from grader.checks.base import EXIT_TIMING_DEFERRED, Emit
from grader.children import SERVE_FLAG
from grader.events import Event, FinishedEvent, encode, read_frame
from grader.job import Job
from grader.lifetime import die_with_parent
from grader.results import DeviceInfo
from grader.runner import execute, open_backend


def serve(jobs: BinaryIO, emit: Emit, opened: tuple[Backend | None, DeviceInfo]) -> int:
    """Grade each job framed on `jobs` with the backend `opened` once, until the stream ends or
    the backend cannot take another; returns the process exit code."""
    backend = opened[0]
    environ = dict(os.environ)
    while (body := read_frame(jobs)) is not None:
        job = Job.from_json(json.loads(body))
        os.environ.update(job.env)
        code = execute(job, emit, opened, close=False)
        os.environ.clear()
        os.environ.update(environ)
        clean = code in (0, EXIT_TIMING_DEFERRED)
        reusable = clean and backend is not None and backend.recycle()
        emit(FinishedEvent(code=code, reusable=reusable))
        if not reusable:
            return code
    return 0


def main() -> int:
    die_with_parent()
    channel = os.fdopen(int(sys.argv[1]), "wb")

    def emit(event: Event) -> None:
        channel.write(encode(event))
        channel.flush()

    # The backend opens before the job arrives (the parent may still be reading the course);
    # the environment it needs (a batch lane's GPU) came with the process.
    opened = open_backend(sys.argv[2]) if len(sys.argv) > 2 else None
    if SERVE_FLAG in sys.argv[3:]:
        assert opened is not None
        return serve(sys.stdin.buffer, emit, opened)
    text = sys.stdin.read()
    if not text:  # the parent ended without a job for this child
        return 0
    job = Job.from_json(json.loads(text))
    os.environ.update(job.env)
    code = execute(job, emit, opened)
    channel.close()
    return code


if __name__ == "__main__":
    exit_code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Every result is out: skip the interpreter's and CuPy's teardown (freeing pools, destroying
    # the CUDA context), which the driver does anyway when the process ends, and which the user
    # would otherwise wait for.
    os._exit(exit_code)

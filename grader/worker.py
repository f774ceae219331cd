"""Entry point of the grading child: `python -m grader.worker FD BACKEND` reads a Job (JSON) from
stdin and writes its events (grader/events.py: length-prefixed JSON) to file descriptor FD;
stdout is left to the kernel's printf."""

from __future__ import annotations

import json
import os
import sys

from grader.events import Event, encode
from grader.job import Job
from grader.lifetime import die_with_parent
from grader.runner import execute, open_backend


def main() -> int:
    die_with_parent()
    channel = os.fdopen(int(sys.argv[1]), "wb")

    def emit(event: Event) -> None:
        channel.write(encode(event))
        channel.flush()

    # The backend opens before the job arrives (the parent may still be reading the course);
    # the environment it needs (a batch lane's GPU) came with the process.
    opened = open_backend(sys.argv[2]) if len(sys.argv) > 2 else None
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

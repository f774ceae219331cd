"""Where one grading's time goes: runs the child side of `grader check ex4` on the solution in this
process under cProfile (twice: the second is warm) and prints the 25 costliest calls.

    python benchmarks/profile_check.py     (on a GPU machine)
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import pstats
import sys
from pathlib import Path

from grader.course import load_course
from grader.events import Event
from grader.job import Job
from grader.runner import execute

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    exercise = load_course(ROOT).find("ex4")
    job = Job(
        spec=exercise.spec.model_dump(),
        source_text=exercise.solution.read_text(),
        display_name="kernel.cu",
        seed=1,
        backend="gpu",
        course_root=str(ROOT),
    )
    events: list[Event] = []
    profile = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()):  # pytest-benchmark's own tables
        execute(job, events.append)
        profile.enable()
        execute(job, events.append)
        profile.disable()
    pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())

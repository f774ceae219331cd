"""One module per command; each a typed function returning an exit code."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.course import Course, load_course
from grader.errors import GraderError


def find_course_root(explicit: Path | None) -> Path:
    """--course if given; else the nearest directory upward holding course.yaml;
    else this checkout."""
    if explicit is not None:
        if not (explicit / "course.yaml").is_file():
            raise GraderError(f"{explicit}: no course.yaml there")
        return explicit
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        if (directory / "course.yaml").is_file():
            return directory
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "course.yaml").is_file():
        return checkout
    raise GraderError("no course.yaml found here or above; pass --course DIR")


def open_course(explicit: Path | None) -> Course:
    return load_course(find_course_root(explicit))


def dispatch(args: argparse.Namespace) -> int:
    from grader.commands import check, doctor, list_exercises, validate

    course_dir: Path | None = args.course
    if args.command == "list":
        return list_exercises.run(open_course(course_dir))
    if args.command == "check":
        return check.run(
            open_course(course_dir),
            args.exercise,
            args.file,
            args.seed,
            args.json,
            args.backend,
            args.benchmark_json,
        )
    if args.command == "calibrate":
        from grader.commands import calibrate

        return calibrate.run(open_course(course_dir), args.exercises, args.runs, args.write)
    if args.command == "validate":
        return validate.run(
            open_course(course_dir), args.exercises, args.seed, args.json, args.backend, args.jobs
        )
    if args.command == "profile":
        from grader.commands import profile

        return profile.run(open_course(course_dir), args.exercise, args.file)
    if args.command == "doctor":
        return doctor.run()
    if args.command == "cache":
        from grader.commands import cache

        return cache.run(args.action == "clear")
    if args.command == "batch":
        from grader.commands import batch

        return batch.run(
            open_course(course_dir),
            args.submissions,
            args.out,
            args.exercise,
            args.jobs,
            args.backend,
            args.resume,
            args.student,
            args.seed,
            args.gpus,
            args.unsafe_no_sandbox,
        )
    if args.command in ("gradescope", "gradescope-package", "release"):
        from grader.commands import gradescope

        course = open_course(course_dir)
        if args.command == "gradescope":
            return gradescope.run(course, args.exercise, args.submission, args.results)
        if args.command == "gradescope-package":
            return gradescope.package(course, args.exercise, args.target)
        return gradescope.release(course, args.target)
    if args.command == "spec-docs":
        from grader.spec_docs import render

        print(render(), end="")
        return 0
    raise GraderError(f"unknown command {args.command!r}")

"""One module per command, each a typed function of keyword arguments returning an exit code;
`dispatch` calls the one of the command parsed, with the course it works on. No command imports
another, and nothing imports a command but this dispatch."""

from __future__ import annotations

import argparse
from collections.abc import Callable
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


# Each command module is imported only when its command runs: `grader list` does not pay for
# the batch's imports, nor `grader check` for matplotlib's until it draws.


def _list(args: argparse.Namespace) -> int:
    from grader.commands import list_exercises

    return list_exercises.run(course=open_course(args.course))


def _check(args: argparse.Namespace) -> int:
    from grader.commands import check

    return check.run(
        course=open_course(args.course),
        exercise=args.exercise,
        file=args.file,
        seed=args.seed,
        as_json=args.json,
        backend=args.backend,
        benchmark_json=args.benchmark_json,
        exitfirst=args.exitfirst,
        verbose=args.verbose,
        every=args.every,
        selection=args.selection,
    )


def _validate(args: argparse.Namespace) -> int:
    from grader.commands import validate

    return validate.run(
        course=open_course(args.course),
        exercises=args.exercises,
        seed=args.seed,
        as_json=args.json,
        backend=args.backend,
        jobs=args.jobs,
    )


def _calibrate(args: argparse.Namespace) -> int:
    from grader.commands import calibrate

    return calibrate.run(
        course=open_course(args.course), keys=args.exercises, runs=args.runs, write=args.write
    )


def _batch(args: argparse.Namespace) -> int:
    from grader.commands import batch

    return batch.run(
        course=open_course(args.course),
        submissions=args.submissions,
        out=args.out,
        exercises=args.exercise,
        jobs=args.jobs,
        backend=args.backend,
        resume=args.resume,
        students=args.student,
        seed=args.seed,
        gpus=args.gpus,
        unsafe_no_sandbox=args.unsafe_no_sandbox,
    )


def _gradescope(args: argparse.Namespace) -> int:
    from grader.commands import gradescope

    return gradescope.run(
        course=open_course(args.course),
        exercises=args.exercise,
        submission=args.submission,
        results=args.results,
    )


def _gradescope_package(args: argparse.Namespace) -> int:
    from grader.commands import gradescope_package

    return gradescope_package.run(
        course=open_course(args.course), exercises=args.exercise, target=args.target
    )


def _release(args: argparse.Namespace) -> int:
    from grader.commands import release

    return release.run(course=open_course(args.course), target=args.target)


def _profile(args: argparse.Namespace) -> int:
    from grader.commands import profile

    return profile.run(course=open_course(args.course), exercise=args.exercise, file=args.file)


def _doctor(args: argparse.Namespace) -> int:
    from grader.commands import doctor

    try:  # the course's solutions, that native code must not read, where there is a course
        hidden = [find_course_root(args.course) / "solutions"]
    except GraderError:
        hidden = []
    return doctor.run(hidden)


def _cache(args: argparse.Namespace) -> int:
    from grader.commands import cache

    return cache.run(clear=args.action == "clear")


def _gradebook(args: argparse.Namespace) -> int:
    from grader.commands import gradebook

    return gradebook.run(
        course=open_course(args.course),
        outs=args.outs,
        target=args.target,
        file_times=args.file_times,
    )


def _feedback(args: argparse.Namespace) -> int:
    from grader.commands import feedback

    return feedback.run(out=args.out, students=args.student)


def _review(args: argparse.Namespace) -> int:
    from grader.commands import review

    return review.run(
        course=open_course(args.course),
        out=args.out,
        exercises=args.exercise,
        students=args.student,
        again=args.again,
        sheet=args.sheet,
        record=args.record,
        status=args.status,
        reviewer=args.reviewer,
    )


def _similarity(args: argparse.Namespace) -> int:
    from grader.commands import similarity

    return similarity.run(
        course=open_course(args.course),
        submissions=args.submissions,
        exercises=args.exercise,
        threshold=args.threshold,
        report=args.report,
    )


def _export(args: argparse.Namespace) -> int:
    from grader.commands import export

    return export.run(course=open_course(args.course), target=args.target, exercises=args.exercise)


def _spec_docs(args: argparse.Namespace) -> int:
    from grader.commands import spec_docs

    return spec_docs.run(course=open_course(args.course) if args.write else None)


def _schema(args: argparse.Namespace) -> int:
    from grader.commands import schema

    return schema.run(document=args.document)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": _list,
    "check": _check,
    "validate": _validate,
    "calibrate": _calibrate,
    "batch": _batch,
    "gradescope": _gradescope,
    "gradescope-package": _gradescope_package,
    "release": _release,
    "profile": _profile,
    "doctor": _doctor,
    "cache": _cache,
    "spec-docs": _spec_docs,
    "export": _export,
    "similarity": _similarity,
    "review": _review,
    "feedback": _feedback,
    "gradebook": _gradebook,
    "schema": _schema,
}
"""Each command's name -> what calls its function with the parsed options, by name."""


def dispatch(args: argparse.Namespace) -> int:
    """Run the command `args` was parsed for; its exit code."""
    command = COMMANDS.get(args.command)
    if command is None:
        raise GraderError(f"unknown command {args.command!r}")
    return command(args)

"""Command-line parsing only: typed arguments go to a command, errors become exit codes."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from grader import __version__
from grader.cli_term import add_term_commands
from grader.errors import EXIT_USAGE, GraderError
from grader.schemas import DOCUMENTS
from grader.text_bounds import bounded


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise GraderError(f"{self.prog}: {message} (see --help)")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed expects a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"--seed must be between 0 and 2^63 - 1, got {value}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _gpu_list(text: str) -> list[str]:
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids or not all(part.isdigit() for part in ids) or len(set(ids)) != len(ids):
        raise argparse.ArgumentTypeError(
            f"--gpus expects distinct GPU numbers like 0,1; got {text!r}"
        )
    return ids


def _add_unsafe(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run native code (the CPU backend) without isolation: only your own code, on a "
        "machine where the sandbox cannot be set up",
    )


def _add_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("gpu", "cpu", "auto"),
        default="auto",
        help="where kernels run: gpu, cpu (emulated), or auto (the GPU when usable, else the CPU)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="grader", description="Grade CUDA matrix-multiplication exercises.")
    parser.add_argument("--version", action="version", version=f"grader {__version__}")
    parser.add_argument(
        "--course",
        type=Path,
        default=None,
        help="directory holding course.yaml (default: found upward from here, else this checkout)",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    commands.add_parser("list", help="list the exercises")

    check = commands.add_parser("check", help="grade a kernel for one exercise")
    check.add_argument(
        "exercise", nargs="?", default=None, help="exercise id (ex4) or directory name"
    )
    check.add_argument(
        "--all",
        dest="every",
        action="store_true",
        help="check every exercise's kernel.cu, then a summary of all",
    )
    check.add_argument(
        "-k",
        dest="selection",
        default="",
        metavar="EXPR",
        help="only the checks whose names match, e.g. -k 'square and not 1024' "
        "(compile always runs)",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="the full message of every check that ran, passed ones too",
    )
    check.add_argument(
        "--file", type=Path, help="kernel to grade (default: the exercise's kernel.cu)"
    )
    check.add_argument("--seed", type=_seed, help="seed for the random inputs (printed every run)")
    check.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )
    check.add_argument(
        "-x",
        "--exitfirst",
        action="store_true",
        help="stop at the first check that fails (the rest are reported as not run)",
    )
    _add_unsafe(check)

    validate = commands.add_parser(
        "validate", help="prove every solution passes and every stub and known-wrong variant fails"
    )
    validate.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    validate.add_argument("--seed", type=_seed, help="seed for the random inputs")
    validate.add_argument("--json", action="store_true", help="print one JSON object")
    _add_backend(validate)
    _add_unsafe(validate)
    validate.add_argument(
        "--jobs",
        type=_positive,
        default=None,
        help="gradings at a time (default: one per CPU core on the CPU backend, else 1)",
    )

    _add_backend(check)
    check.add_argument(
        "--benchmark-json",
        type=Path,
        default=None,
        help="also write the performance check's pytest-benchmark JSON here",
    )

    calibrate = commands.add_parser(
        "calibrate", help="time the reference solutions on this GPU and propose thresholds"
    )
    calibrate.add_argument("exercises", nargs="*", help="exercise ids (default: all with timing)")
    calibrate.add_argument("--runs", type=_positive, default=5, help="gradings per exercise")
    calibrate.add_argument(
        "--write", action="store_true", help="record the proposal in the spec under this GPU's name"
    )

    batch = commands.add_parser("batch", help="grade a directory of submissions (instructors)")
    batch.add_argument("submissions", type=Path, help="a folder or .zip per student")
    batch.add_argument("--out", type=Path, required=True, help="results, gradebook and feedback")
    batch.add_argument("--exercise", action="append", default=[], help="exercise id (repeatable)")
    batch.add_argument(
        "--jobs",
        type=_positive,
        default=None,
        help="gradings at a time (default: 8 per GPU lane, else one per core)",
    )
    batch.add_argument("--resume", action="store_true", help="grade only what has no result yet")
    batch.add_argument("--student", action="append", default=[], help="re-grade this student")
    batch.add_argument(
        "--seed",
        type=_seed,
        help="public seed, mixed per grading with the instructor's secret (OUT/secret.key)",
    )
    batch.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run students' code on the CPU backend without the sandbox (accepts the risk)",
    )
    batch.add_argument(
        "--gpus", type=_gpu_list, default=[], help="GPUs to spread over, e.g. 0,1 (one lane each)"
    )
    _add_backend(batch)

    scope = commands.add_parser(
        "gradescope", help="grade a Gradescope submission (the autograder's entry point)"
    )
    scope.add_argument("--exercise", action="append", default=[], help="exercise id (repeatable)")
    scope.add_argument(
        "--submission",
        type=Path,
        default=Path("/autograder/submission"),
        help="the student's files (default: Gradescope's /autograder/submission)",
    )
    scope.add_argument(
        "--results",
        type=Path,
        default=Path("/autograder/results/results.json"),
        help="the results file to write (default: Gradescope's)",
    )
    scope_package = commands.add_parser(
        "gradescope-package", help="build the Gradescope autograder zip"
    )
    scope_package.add_argument("target", type=Path, help="the .zip to write")
    scope_package.add_argument("--exercise", action="append", default=[], help="exercise id")
    add_term_commands(commands)

    exporter = commands.add_parser(
        "export",
        help="zip your kernels and answers for hand-in, and check the zip as graders read it",
    )
    exporter.add_argument(
        "target", type=Path, help="the zip to write (a new file, e.g. hand-in.zip)"
    )
    exporter.add_argument(
        "--exercise", action="append", default=[], help="only this exercise (repeatable)"
    )

    release = commands.add_parser("release", help="a student copy of the course (no solutions)")
    release.add_argument("target", type=Path, help="an empty or new directory")

    profile = commands.add_parser(
        "profile", help="Nsight Compute figures for an exercise's kernels, side by side"
    )
    profile.add_argument("exercise", help="exercise id (ex3)")
    profile.add_argument(
        "--file", type=Path, help="your kernel, profiled too (default: the exercise's kernel.cu)"
    )

    spec_docs = commands.add_parser(
        "spec-docs", help="print the course.yaml / spec.yaml reference (Markdown)"
    )
    spec_docs.add_argument(
        "--write",
        action="store_true",
        help="write it to docs/spec.md, and each exercise README's points from its spec",
    )

    schema = commands.add_parser(
        "schema", help="print the JSON Schema of check --json's report or of a batch record"
    )
    schema.add_argument(
        "document",
        nargs="?",
        choices=DOCUMENTS,
        default="report",
        help="report (check --json, the default) or batch-record (a row of results.sqlite)",
    )

    commands.add_parser("doctor", help="report GPU, driver, CUDA, CuPy, NVRTC, nvcc and ncu")

    cache = commands.add_parser("cache", help="show the build cache (NVRTC and CPU programs)")
    cache.add_argument(
        "action", nargs="?", choices=("show", "clear"), default="show", help="show or clear it"
    )
    return parser


_PATH_ERRORS = frozenset(
    {errno.ENOENT, errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM,
     errno.EROFS}
)  # fmt: skip
"""What a path given on the command line may run into (a folder that is not there, a file where
a folder goes): one line, exit 2."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "unsafe_no_sandbox", False):
            from grader.sandbox import SANDBOX_ENV

            os.environ[SANDBOX_ENV] = "off"  # the grading children run native code unisolated
        if args.command == "check":
            # Start-up, not parsing: the grading child starts now (Python, CuPy, the CUDA
            # context: about a second on a GPU) while this process reads the course.
            from grader.children import prestart

            prestart(args.backend)
        from grader.commands import dispatch

        return dispatch(args)
    except GraderError as exc:
        print(f"grader: error: {bounded(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_USAGE
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            print(f"grader: error: {where}no space left on the device", file=sys.stderr)
            return EXIT_USAGE
        if exc.filename and exc.errno in _PATH_ERRORS:  # a path given that cannot be used
            print(f"grader: error: {where}{(exc.strerror or str(exc)).lower()}", file=sys.stderr)
            return EXIT_USAGE
        raise

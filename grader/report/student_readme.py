"""The README of a student copy of the course (`grader release`): how to set up and check, and
each exercise with its points from its spec; nothing of batches, secrets or solutions."""

from __future__ import annotations

from grader.course import Course
from grader.report.points import points_summary


def render_student_readme(course: Course) -> str:
    rows = [
        f"| {e.id} | {e.title} | `exercises/{e.dir_name}/` | "
        f"{points_summary(e.spec).removeprefix('Points: ')} |"
        for e in course.exercises
    ]
    first = course.exercises[0].id if course.exercises else "ex1"
    return "\n".join(
        [
            f"# {course.title}",
            "",
            "## Set-up: one command on a fresh machine (Python >= 3.10)",
            "",
            "```sh",
            *_commented(
                [
                    (f"bin/dev grader check {first}", "sets up on first use, then grades the stub"),
                    ("source .venv/bin/activate", "then `grader ...` works in this shell"),
                ]
            ),
            "```",
            "",
            "Without a GPU, kernels run on the CPU backend: correctness is graded as on a GPU;",
            "what needs a GPU (timing, profiles, figures measured on one) is graded on a GPU",
            "only: the report lists those points as '(N need a GPU)', not as lost.",
            "",
            "## Checking your work",
            "",
            "```sh",
            *_commented(
                [
                    ("grader list", "the exercises"),
                    (f"grader check {first}", "grade the exercise's kernel.cu"),
                    (f"grader check {first} --file my.cu", "grade another file (or a notebook)"),
                    (f"grader check {first} -x", "stop at the first check that fails"),
                    ("grader check --all", "every exercise, then one summary"),
                    ("grader export hand-in.zip", "what to upload, checked as graders read it"),
                    (
                        f"grader check {first} --seed 1234567",
                        "reproduce a run (the seed is printed)",
                    ),
                    ("grader doctor", "what this machine offers"),
                ]
            ),
            "```",
            "",
            "## Exercises",
            "",
            "Each folder holds the stub `kernel.cu`, its `spec.yaml`, and a `README.md` with the",
            "task and the launch contract (and `answers.yaml` where it asks questions).",
            "",
            "| id | exercise | folder | points (from its spec.yaml) |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    )


def _commented(lines: list[tuple[str, str]]) -> list[str]:
    """Shell commands with their comments lined up in one column."""
    width = max(len(command) for command, _ in lines) + 2
    return [f"{command.ljust(width)}# {comment}" for command, comment in lines]

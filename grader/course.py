"""course.yaml -> the course: its exercises, each with its spec loaded (grader/spec/) and its
paths resolved, checked to agree with each other."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import (
    Field,
    field_validator,
)

from grader.errors import GraderError
from grader.schema_errors import parse_document
from grader.spec import ExerciseSpec, Rubric, SpecModel, load_spec
from grader.yaml_source import read_yaml

_EXERCISE_ID = re.compile(r"^ex[0-9]+$")


class CourseExercise(SpecModel):
    """One entry of course.yaml's exercise list."""

    id: str = Field(description="Short id used on the command line: ex1, ex2, ...")
    dir: str = Field(description="Directory under exercises/ (and solutions/).")
    title: str = Field(description="Shown in reports.")
    points: int = Field(ge=0, description="Must equal the total of the exercise's spec.")

    @field_validator("id")
    @classmethod
    def _id_format(cls, value: str) -> str:
        if not _EXERCISE_ID.match(value):
            raise ValueError(f"expected an id like 'ex1', got {value!r}")
        return value

    @field_validator("dir")
    @classmethod
    def _plain_dir(cls, value: str) -> str:
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", value):
            shown = value if len(value) <= 60 else value[:60] + "..."
            raise ValueError(
                f"expected a plain directory name of at most 100 characters, got {shown!r}"
            )
        return value


class LatePolicy(SpecModel):
    """course.yaml's `deadlines`: when each exercise is due and what lateness costs; applied by
    `grader gradebook` to each submission's hand-in time."""

    due: dict[str, datetime] = Field(
        description="Per exercise id: the deadline, ISO 8601 with its UTC offset "
        "('2026-10-01T23:59:00+02:00')."
    )
    grace_minutes: float = Field(
        0.0, ge=0, description="Handed in up to this long after a deadline counts as on time."
    )
    penalty_per_day: float = Field(
        0.1, ge=0, le=1, description="The share of the points lost per day late (or part of one)."
    )
    max_days_late: int | None = Field(
        None, ge=0, description="Later than this many days: no points (none: no such limit)."
    )
    extensions: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Per student (as the batch names them), per exercise id: extra hours.",
    )

    @field_validator("due", mode="before")
    @classmethod
    def _dates(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        parsed = {}
        for key, when in value.items():
            if isinstance(when, str):
                try:
                    when = datetime.fromisoformat(when)
                except ValueError:
                    raise ValueError(f"{key}: expected ISO 8601, got {when!r}") from None
            if isinstance(when, datetime) and when.tzinfo is None:
                raise ValueError(f"{key}: give the UTC offset, e.g. 2026-10-01T23:59:00+00:00")
            parsed[key] = when
        return parsed


class CourseSpec(SpecModel):
    """The course: its title and its exercises, in the order students meet them."""

    title: str = Field(description="The course's name, shown by `grader list`.")
    exercises: list[CourseExercise] = Field(min_length=1, description="At least one exercise.")
    deadlines: LatePolicy | None = Field(
        None, description="Deadlines and the late policy (none: nothing is late)."
    )


@dataclass(frozen=True)
class Exercise:
    """An exercise of the course with its spec loaded and its paths resolved."""

    id: str
    dir_name: str
    title: str
    points: int
    spec: ExerciseSpec
    directory: Path
    solution_directory: Path
    rubric: Rubric | None = None
    """The written answer's rubric (answers.review), where the solutions are here."""

    @property
    def stub(self) -> Path:
        return self.directory / self.spec.kernel.file

    @property
    def solution(self) -> Path:
        return self.solution_directory / self.spec.kernel.file

    @property
    def wrong_variants(self) -> list[Path]:
        """Known-wrong kernels (`*.cu`) and, where the exercise asks questions, answers files
        (`*.yaml`, graded with the solution's kernel)."""
        wrong = self.solution_directory / "wrong"
        return sorted([*wrong.glob("*.cu"), *wrong.glob("*.yaml")])


@dataclass(frozen=True)
class Course:
    root: Path
    title: str
    exercises: tuple[Exercise, ...]
    deadlines: LatePolicy | None = None

    def find(self, key: str) -> Exercise:
        """An exercise by id (`ex4`) or directory name; a GraderError listing the choices."""
        for exercise in self.exercises:
            if key in (exercise.id, exercise.dir_name):
                return exercise
        choices = ", ".join(f"{e.id} ({e.dir_name})" for e in self.exercises)
        raise GraderError(
            f"no exercise {key!r} in {self.root / 'course.yaml'}; choose one of: {choices}"
        )


def _rubric(spec: ExerciseSpec, spec_file: Path, solutions: Path) -> Rubric | None:
    """The rubric of the spec's reviewed answer, checked to add up to its points; None where
    there is none, or no solutions folder (a student's copy of the course)."""
    review = spec.answers.review if spec.answers else None
    if review is None or not solutions.is_dir():
        return None
    path = solutions / review.rubric
    if not path.is_file():
        raise GraderError(f"{spec_file}: answers.review: its rubric {path} not found")
    rubric = parse_document(read_yaml(path), Rubric)
    if rubric.points != review.points:
        raise GraderError(
            f"{path}: the items add up to {rubric.points:g}, not the {review.points} points of "
            f"answers.review in {spec_file}"
        )
    return rubric


def load_course(root: Path) -> Course:
    """Load course.yaml under `root` and every exercise's spec, checking they agree."""
    course_file = root / "course.yaml"
    document = read_yaml(course_file)
    course = parse_document(document, CourseSpec)
    exercises: list[Exercise] = []
    seen: set[str] = set()
    for index, entry in enumerate(course.exercises):
        where = document.where(("exercises", index))
        for key in (entry.id, entry.dir):
            if key in seen:
                raise GraderError(f"{where}: {key!r} appears twice in the exercise list")
            seen.add(key)
        directory = root / "exercises" / entry.dir
        spec_file = directory / "spec.yaml"
        if not spec_file.is_file():
            raise GraderError(f"{where}: exercise {entry.id}: {spec_file} not found")
        spec = load_spec(spec_file)
        if spec.max_score != entry.points:
            raise GraderError(
                f"{where}: exercise {entry.id} is worth {entry.points} points here but its spec "
                f"{spec_file} adds up to {spec.max_score}"
            )
        solutions = root / "solutions" / entry.dir
        exercises.append(
            Exercise(
                id=entry.id,
                dir_name=entry.dir,
                title=entry.title,
                points=entry.points,
                spec=spec,
                directory=directory,
                solution_directory=solutions,
                rubric=_rubric(spec, spec_file, solutions),
            )
        )
    if course.deadlines is not None:
        policy = course.deadlines
        named: list[tuple[str, ...]] = [("due", key) for key in policy.due]
        named += [("extensions", s, key) for s, keys in policy.extensions.items() for key in keys]
        for loc in named:
            if loc[-1] not in seen:
                raise GraderError(
                    f"{document.where(('deadlines', *loc))}: deadlines: {loc[-1]!r} is not an "
                    f"exercise id of this course"
                )
    return Course(
        root=root, title=course.title, exercises=tuple(exercises), deadlines=course.deadlines
    )

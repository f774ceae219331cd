"""Finding the submissions in a directory, whatever layout the course's tools produced.

Layouts, detected per entry and reported:
- a folder per student holding `kernel.cu` (one exercise, given with --exercise), or holding
  exercise directories (`ex4-register-tiling/kernel.cu`, with their `answers.yaml`);
- a `.zip` per student with either of those inside, extracted safely into the output directory;
- a Gradescope export: a folder per submission and `submission_metadata.yml` naming who made it.
"""

from __future__ import annotations

import re
import stat
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from grader.course import Exercise
from grader.errors import GraderError

MAX_ZIP_FILES = 200
MAX_ZIP_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Submission:
    """One student's work for one exercise."""

    student: str
    exercise: Exercise
    kernel: Path | None
    """None when the student handed in nothing for this exercise."""
    answers: Path | None
    layout: str


def _unzip(archive: Path, target: Path) -> Path:
    """Extract `archive` into `target`, refusing paths that escape it, links, and bombs."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            members = zipped.infolist()
            if len(members) > MAX_ZIP_FILES:
                raise GraderError(f"{archive}: {len(members)} files, over {MAX_ZIP_FILES}")
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise GraderError(f"{archive}: over {MAX_ZIP_BYTES} bytes once extracted")
            for member in members:
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts:
                    raise GraderError(f"{archive}: {member.filename!r} points outside the archive")
                if stat.S_ISLNK(member.external_attr >> 16):
                    raise GraderError(f"{archive}: {member.filename!r} is a link")
            target.mkdir(parents=True, exist_ok=True)
            zipped.extractall(target)
    except zipfile.BadZipFile:
        raise GraderError(f"{archive}: not a zip archive") from None
    return target


def _find(folder: Path, exercise: Exercise, single: bool) -> tuple[Path | None, Path | None]:
    """The kernel and answers of `exercise` in a student's folder."""
    names = [exercise.dir_name, exercise.id]
    for name in names:
        candidate = folder / name / exercise.spec.kernel.file
        if candidate.is_file():
            return candidate, _answers(candidate, exercise)
    direct = folder / exercise.spec.kernel.file
    if single and direct.is_file():
        return direct, _answers(direct, exercise)
    notebooks = sorted(folder.glob("*.ipynb"))
    if len(notebooks) == 1:  # the kernel is the cell marked for the exercise
        return notebooks[0], _answers(notebooks[0], exercise)
    return None, None


def _answers(kernel: Path, exercise: Exercise) -> Path | None:
    spec = exercise.spec.answers
    return kernel.parent / spec.file if spec else None


def gradescope_students(root: Path) -> dict[str, str]:
    """A Gradescope export's folder -> student (SID, else e-mail, else name), from its
    submission_metadata.yml; {} when `root` is not such an export."""
    metadata = root / "submission_metadata.yml"
    if not metadata.is_file():
        return {}
    try:
        data = yaml.safe_load(metadata.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise GraderError(f"{metadata}: not readable YAML ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise GraderError(f"{metadata}: expected a mapping of submission folders")
    students: dict[str, str] = {}
    for folder, entry in data.items():
        submitters = entry.get(":submitters") if isinstance(entry, dict) else None
        if not submitters or not isinstance(submitters, list):
            raise GraderError(f"{metadata}: {folder}: no :submitters")
        first = submitters[0] if isinstance(submitters[0], dict) else {}
        who = first.get(":sid") or first.get(":email") or first.get(":name")
        if not who:
            raise GraderError(f"{metadata}: {folder}: a submitter without :sid, :email or :name")
        students[str(folder)] = re.sub(r"[^\w.@-]", "_", str(who))
    return students


def discover(
    root: Path, exercises: Sequence[Exercise], work: Path
) -> tuple[list[Submission], list[str]]:
    """Every (student, exercise) in `root`, and one line per entry saying how it was read."""
    if not root.is_dir():
        raise GraderError(f"{root}: not a directory of submissions")
    submissions: list[Submission] = []
    notes: list[str] = []
    exported = gradescope_students(root)
    if exported:
        notes.append(f"Gradescope export: {len(exported)} submission(s) in submission_metadata.yml")
        for name, student in sorted(exported.items()):
            path = root / name
            if not path.is_dir() or path.is_symlink():
                notes.append(f"{name}: skipped: listed in the metadata but not a folder")
                continue
            submissions += in_folder(path, student, exercises, "gradescope export")
        return submissions, notes
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            folder, layout, student = entry, "folder", entry.name
        elif entry.suffix == ".zip" and entry.is_file():
            student = entry.stem
            try:
                folder = _unzip(entry, work / "unzipped" / student)
            except GraderError as exc:
                notes.append(f"{entry.name}: skipped: {exc}")
                continue
            layout = "zip"
        else:
            notes.append(f"{entry.name}: skipped: not a folder or a .zip")
            continue
        mine = in_folder(folder, student, exercises, layout)
        found = sum(s.kernel is not None for s in mine)
        submissions += mine
        notes.append(f"{entry.name}: {layout}, {found} of {len(exercises)} exercise(s) found")
    return submissions, notes


def in_folder(
    folder: Path, student: str, exercises: Sequence[Exercise], layout: str
) -> list[Submission]:
    """One student's submissions in their folder, one per exercise (kernel None if absent)."""
    single = len(exercises) == 1
    out = []
    for exercise in exercises:
        kernel, answers = _find(folder, exercise, single)
        out.append(Submission(student, exercise, kernel, answers, layout))
    return out

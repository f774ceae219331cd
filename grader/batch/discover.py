"""Finding the submissions in a directory, whatever layout the course's tools produced.

Layouts, detected per entry and reported:
- a folder per student holding `kernel.cu` (one exercise, given with --exercise), or holding
  exercise directories (`ex4-register-tiling/kernel.cu`, with their `answers.yaml`);
- a `.zip` per student with either of those inside, extracted safely into the output directory;
- inside a folder or zip, everything may sit in one folder of its own (`alice/...`, as zipping a
  folder gives), and the kernel may have another name where it is the only `.cu` file there;
- a single `.cu` file or notebook per student (`alice.cu`, `alice.ipynb`), the student its stem
  (a `.cu` file only with one --exercise);
- a Gradescope export: a folder per submission and `submission_metadata.yml` naming who made it.

Nothing a student handed in is followed or opened here: links, pipes and devices are seen with
lstat and refused. A submission that cannot be graded (a refused zip, a link where a kernel
should be) is still a Submission, with `error` saying why, so that the batch records it and goes
on with everyone else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from grader.batch.layouts import last_change
from grader.batch.names import display, file_name, stem, text_key
from grader.batch.student_folder import Submission, found_note, in_folder, read_folder
from grader.batch.submitters import METADATA, Entry, Submitter, export_times, read_export
from grader.batch.unzip import extract
from grader.course import Exercise
from grader.errors import GraderError
from grader.notebook import marked_exercises, unreadable


def discover(
    root: Path,
    exercises: Sequence[Exercise],
    work: Path,
    others: Sequence[Exercise] = (),
    *,
    graded_too: Sequence[str] = (),
) -> tuple[list[Submission], list[str]]:
    """Every (student, exercise) in `root`, and one line per entry saying how it was read;
    kernels where `others` (exercises not graded this time) have them are not listed unread.
    `graded_too`: exercises graded earlier into the same output, besides these: a lone kernel
    is then not taken as this run's one exercise's."""
    if not root.is_dir():
        raise GraderError(f"{root}: not a directory of submissions")
    export = read_export(root)
    if export is not None:
        return _from_export(root, export, exercises, others)
    submissions: list[Submission] = []
    notes: list[str] = []
    everything = sorted(root.iterdir())
    entries = [e for e in everything if not e.name.startswith(".")]
    names = {e.name for e in entries}
    folders = {e.directory.name for e in (*exercises, *others)}
    if names & folders:
        raise GraderError(
            f"{root}: holds {sorted(names & folders)[0]}, an exercise's folder: this is one "
            "student's hand-in; give the folder that holds a folder or zip per student"
        )
    for entry in entries:
        key = _key(entry, names)
        try:
            mine, note = _from_entry(entry, key, exercises, work, others, graded_too)
        except Exception as exc:  # one submission never stops a batch, whatever it holds
            why = " ".join(f"could not be read ({type(exc).__name__}: {exc})".split())[:300]
            mine = _refused(key, exercises, "unknown", f"{display(entry.name)}: {why}")
            note = f"refused: {why}"
        submissions += mine
        notes.append(f"{display(entry.name)}: {note}")
    for hidden in (e for e in everything if e.name.startswith(".")):
        notes.append(f"{display(hidden.name)}: skipped: a hidden file or folder")
    return submissions, notes


def _key(entry: Path, names: set[str]) -> str:
    """An entry's student key: a folder's name; a zip's, a kernel's or a notebook's stem,
    unless another entry is named that or has that stem too (`alice` and `alice.zip`, or
    `alice.cu` and `alice.ipynb`), when it is the whole name: never the same twice."""
    own = stem(entry.name)
    clash = own in names or sum(stem(n) == own for n in names) > 1
    return text_key(own if own and not clash else entry.name)


def _from_entry(
    entry: Path,
    key: str,
    exercises: Sequence[Exercise],
    work: Path,
    others: Sequence[Exercise],
    graded_too: Sequence[str] = (),
) -> tuple[list[Submission], str]:
    """One entry of the submissions directory: its submissions and a note on it."""
    mode = os.lstat(entry).st_mode
    is_zip = entry.name.endswith(".zip")
    if stat.S_ISLNK(mode):
        if is_zip or os.path.isdir(entry):
            why = "a symbolic link, not followed: copy the work in itself"
            return _refused(
                key, exercises, "link", f"{display(entry.name)}: {why}"
            ), f"refused: {why}"
        return [], "skipped: a link, not followed"
    if stat.S_ISDIR(mode):
        mine, note = read_folder(entry, key, exercises, "folder", others, graded_too)
        return [_stamped(s, None) for s in mine], note
    if entry.suffix in (".cu", ".ipynb") and stat.S_ISREG(mode):
        return _from_file(entry, key, exercises, graded_too)
    if not is_zip:
        return [], "skipped: not a folder, a .zip, a .cu file or a notebook"
    try:
        folder = extract(entry, work / "unzipped" / file_name(key))
    except GraderError as exc:
        why = str(exc).removeprefix(f"{display(entry.name)}: ")
        return _refused(key, exercises, "zip", str(exc)), f"refused: {why}"
    mine, note = read_folder(folder, key, exercises, "zip", others, graded_too)
    aside = (
        f" (graded as {key!r}: {key[: -len('.zip')]!r} is there too)" if key == entry.name else ""
    )
    found, unread_too, rest = note.partition("; not read: ")  # the aside goes with what was found
    return [_stamped(s, entry) for s in mine], found + aside + unread_too + rest


def _from_file(
    entry: Path, key: str, exercises: Sequence[Exercise], graded_too: Sequence[str] = ()
) -> tuple[list[Submission], str]:
    """A student's single file at the top: a notebook (a cell per exercise), or a kernel (for
    the one exercise graded)."""
    student = key
    if entry.suffix == ".cu" and (len(exercises) != 1 or graded_too):
        # not graded, and no result recorded: how the batch was run, not the student, decides
        # that it cannot be read (a batch of one --exercise reads it); listed as not read
        mine = [Submission(student, e, None, None, "file", unread=True) for e in exercises]
        count = len(exercises) + len(graded_too)
        why = (
            f"one kernel for {count} exercises, which one it is is not guessed: hand in "
            "a folder or zip with each kernel in its exercise's folder, or the instructor grades "
            "it with one --exercise, into an output folder of its own"
        )
        return (
            mine,
            f"{found_note('file', mine, exercises)}; not read: {display(entry.name)} ({why})",
        )
    # no answers file: one beside it at the top would be everyone's
    marked = marked_exercises(entry) if entry.suffix == ".ipynb" else None
    if entry.suffix == ".ipynb" and marked is None:  # refused, as a broken zip is
        why = unreadable(entry).removeprefix(f"{entry.name}: ")
        return _refused(key, exercises, "file", f"{display(entry.name)}: {why}"), f"refused: {why}"
    wanted = {e.id for e in exercises}
    if marked and not marked & wanted:
        others = ", ".join(sorted(marked))
        return [Submission(student, e, None, None, "file") for e in exercises], (
            f"{found_note('file', [], exercises)}; not read: {display(entry.name)} (its cells are "
            f"marked for {others}, none for {', '.join(sorted(wanted))})"
        )
    mine = [
        _stamped(Submission(student, e, None if marked and e.id not in marked else entry,
                            None, "file"), None)
        for e in exercises
    ]  # fmt: skip
    aside = (
        f" (graded as {key!r}: another hand-in is {stem(key)!r} too)" if key == entry.name else ""
    )
    return mine, found_note("file", mine, exercises) + aside


def _stamped(submission: Submission, archive: Path | None) -> Submission:
    """With its time: the zip's where it came in one (its files are extracted anew), else the
    latest change to its kernel and answers files (links not followed)."""
    paths = [archive] if archive else [submission.kernel, submission.answers]
    at = last_change(p for p in paths if p is not None)
    return replace(submission, submitted_at=at, time_source="files")


def _refused(
    key: str,
    exercises: Sequence[Exercise],
    layout: str,
    why: str,
    submitters: tuple[Submitter, ...] = (),
) -> list[Submission]:
    return [Submission(key, e, None, None, layout, why, submitters) for e in exercises]


def _from_export(
    root: Path, export: dict[str, Entry], exercises: Sequence[Exercise], others: Sequence[Exercise]
) -> tuple[list[Submission], list[str]]:
    notes = [f"Gradescope export: {len(export)} submission(s) in {METADATA}"]
    times = export_times(root)
    submissions: list[Submission] = []
    layout = "gradescope export"
    for folder, entry in sorted(export.items()):
        key = text_key(folder)  # the folder's name, unless YAML gave it bytes no file has
        people = entry if isinstance(entry, tuple) else ()
        why = entry if isinstance(entry, str) else _not_a_folder(root, folder)
        if why:
            submissions += _refused(key, exercises, layout, why, people)
            notes.append(f"{display(key)}: refused: {why}")
            continue
        mine = in_folder(root / key, key, exercises, layout, people, others)
        if folder in times:
            mine = [replace(s, submitted_at=times[folder], time_source="export") for s in mine]
        submissions += mine
        notes.append(f"{display(key)}: {found_note(layout, mine, exercises)}")
    for path in sorted(root.iterdir()):
        if path.name not in export and path.name != METADATA and not path.name.startswith("."):
            notes.append(f"{display(path.name)}: skipped: not listed in {METADATA}")
    return submissions, notes


def _not_a_folder(root: Path, key: str) -> str | None:
    """Why an export's entry `key` has no usable folder (None when it has)."""
    if key in ("", ".", "..") or "/" in key or "\0" in key or text_key(key) != key:
        return f"{display(key)}: not the name of a folder in the export"
    try:
        mode = os.lstat(root / key).st_mode
    except OSError as exc:
        return f"{display(key)}: listed in {METADATA} but no folder to read ({exc.strerror})"
    if stat.S_ISLNK(mode):
        return f"{display(key)}: a symbolic link, not followed"
    return None if stat.S_ISDIR(mode) else f"{display(key)}: not a folder"

"""Who made each submission of a Gradescope export, from its submission_metadata.yml: every
submitter of a group, with their SID, e-mail and name kept as given (for display and exports);
the submission folder, which Gradescope makes unique, is the key."""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.errors import GraderError
from grader.yaml_source import read_yaml

METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 16 * 1024 * 1024
"""A large course's export, with every submission's history, stays well below this."""
MAX_FIELD = 200


@dataclass(frozen=True)
class Submitter:
    """One person behind a submission, as the export names them ('' where it does not)."""

    sid: str
    email: str
    name: str

    @property
    def label(self) -> str:
        """How a message names them: SID, else e-mail, else name."""
        return self.sid or self.email or self.name


Entry = tuple[Submitter, ...] | str
"""A submission's submitters, or why its entry in the metadata cannot be used."""


def read_export(root: Path) -> dict[str, Entry] | None:
    """Submission folder -> its submitters (or the reason its entry is unusable, naming the
    file and line), for every entry of `root`'s metadata; None when `root` is not an export.
    A metadata file that cannot be read at all is a GraderError naming it."""
    path = root / METADATA
    if not os.path.lexists(path):
        return None
    # Gradescope writes the file with Ruby's YAML, which uses anchors for repeated values: they
    # are read, as long as they stand for a bounded number of values
    document = read_yaml(path, limit=MAX_METADATA_BYTES, follow_links=False, aliases=True)
    if not isinstance(document.data, dict):
        raise GraderError(f"{path}: expected a mapping of submission folders to their :submitters")
    entries: dict[str, Entry] = {}
    for folder, entry in document.data.items():
        key = str(folder)  # exactly the folder's name: two never share a key
        where = document.where((key,))
        if key in entries:
            entries[key] = f"{where}: {key!r} is listed twice"
            continue
        submitters = entry.get(":submitters") if isinstance(entry, dict) else None
        if not submitters or not isinstance(submitters, list):
            entries[key] = f"{where}: no :submitters list for this submission"
            continue
        people = [_submitter(s) for s in submitters]
        missing = [n for n, p in enumerate(people, 1) if p is None or not p.label]
        if missing:
            entries[key] = (
                f"{where}: submitter {missing[0]} has no :sid, :email or :name in the export"
            )
            continue
        entries[key] = tuple(p for p in people if p is not None)
    return entries


def export_times(root: Path) -> dict[str, float]:
    """Each export folder's hand-in time as Gradescope recorded it (`:created_at`, seconds since
    the epoch); folders without a readable one are left out."""
    path = root / METADATA
    if not os.path.lexists(path):
        return {}
    document = read_yaml(path, limit=MAX_METADATA_BYTES, follow_links=False, aliases=True)
    times: dict[str, float] = {}
    for folder, entry in (document.data or {}).items() if isinstance(document.data, dict) else ():
        when = entry.get(":created_at") if isinstance(entry, dict) else None
        if isinstance(when, str):
            with contextlib.suppress(ValueError):
                when = datetime.fromisoformat(when.strip())
        if isinstance(when, datetime) and when.tzinfo is not None:
            times[str(folder)] = when.timestamp()
    return times


def _submitter(data: object) -> Submitter | None:
    if not isinstance(data, dict):
        return None
    return Submitter(_text(data.get(":sid")), _text(data.get(":email")), _text(data.get(":name")))


def _text(value: object) -> str:
    """A value as one line of at most MAX_FIELD characters ('' for none)."""
    if value is None:
        return ""
    line = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", str(value)).split())
    return line[:MAX_FIELD]

"""File names for what a batch writes per student (feedback, extracted zips): a student's key
comes from a folder or zip name, or an export, so it may be too long for a file name, hold
characters a shell or a spreadsheet mishandles, or start with a dot."""

from __future__ import annotations

import hashlib
import re

_PLAIN = re.compile(r"[A-Za-z0-9_@+][A-Za-z0-9_.@+-]{0,99}")


def display(name: str) -> str:
    """A file name as a one-line message shows it: itself when printable and short, else
    quoted with its odd characters escaped (newlines, terminal codes, bytes that are not text)."""
    if name.isprintable() and len(name) <= 100:
        return name
    return repr(name if len(name) <= 60 else name[:60] + "...")


STEMMED = (".zip", ".cu", ".ipynb")
"""Entries whose student is their name without the suffix (`alice.zip` is alice's)."""


def stem(name: str) -> str:
    """`name` without the suffix that makes it a student's entry, or "" if it has none."""
    return next((name[: -len(s)] for s in STEMMED if name.endswith(s) and len(name) > len(s)), "")


def note_owner(entry: str, students: set[str]) -> str | None:
    """The student whose entry a discovery note names: the entry itself where that is a
    student's key (a folder, or a name whose stem clashed), else its stem, if a student's."""
    if entry in students:
        return entry
    return stem(entry) if stem(entry) in students else None


def text_key(name: str) -> str:
    """A file name as a student key: itself when it is text (UTF-8); a name of other bytes
    (which Python holds with surrogates, and SQLite, CSV and the terminal refuse) with those
    bytes spelled out as \\xNN and a hash, so that it stays apart from every other name."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogateescape")
        return f"{raw.decode('utf-8', 'backslashreplace')}~{hashlib.sha256(raw).hexdigest()[:12]}"
    return name


def file_name(key: str) -> str:
    """`key` itself when it is a plain, short, lower-case name; otherwise its plain characters
    (at most 60) and `~` and a hash of the whole key, so that two keys never share a file name,
    on a file system that ignores case too (`Alice` and `alice`: macOS, Windows)."""
    if _PLAIN.fullmatch(key) and key == key.lower():
        return key
    plain = re.sub(r"[^A-Za-z0-9_.@+-]", "_", key)[:60].lstrip(".") or "student"
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{plain}~{digest}"

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
    """`key` itself when it is a plain, short name; otherwise its plain characters (at most 60)
    and `~` and a hash of the whole key, so that two keys never share a file name."""
    if _PLAIN.fullmatch(key):
        return key
    plain = re.sub(r"[^A-Za-z0-9_.@+-]", "_", key)[:60].lstrip(".") or "student"
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{plain}~{digest}"

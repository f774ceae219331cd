"""Extracting a student's .zip without trusting it: every member is checked before anything is
written (names that escape or are too long, links, devices, encryption, unusual compression, a
name given twice, a file and a folder of one name, too many files or bytes), then written one by
one with O_EXCL | O_NOFOLLOW under directories opened relative to the target, never more bytes
than declared. Whatever goes wrong is one GraderError naming the archive and the member."""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from grader.batch.names import display
from grader.bounded_read import not_regular
from grader.errors import GraderError

MAX_ZIP_FILES = 200
MAX_ZIP_BYTES = 20 * 1024 * 1024
"""Extracted, all members together."""
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
"""The .zip itself."""
MAX_NAME_BYTES = 255
"""One component of a member's path (NAME_MAX on Linux)."""
MAX_PATH_BYTES = 1024
MAX_DEPTH = 32
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
OTHER_METHODS = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}
_CHUNK = 64 * 1024

# What reading a damaged or hostile archive can raise, besides GraderError.
READ_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    struct.error,
    zlib.error,
    lzma.LZMAError,
)


@dataclass(frozen=True)
class _Member:
    info: zipfile.ZipInfo
    parts: tuple[str, ...]
    is_dir: bool


def shown(name: str) -> str:
    """A member's name as a one-line message shows it: quoted, escaped, at most 60 characters."""
    return repr(name if len(name) <= 60 else name[:60] + "...")


def extract(archive: Path, target: Path) -> Path:
    """Extract `archive` into `target` (emptied first); a GraderError naming the archive and
    why when any member is refused or unreadable, leaving nothing half-extracted behind."""
    try:
        with _open_archive(archive) as file, zipfile.ZipFile(file) as zipped:
            members = _checked(archive, zipped.infolist())
            _fresh(target)
            _write_all(archive, zipped, members, target)
    except GraderError:
        shutil.rmtree(target, ignore_errors=True)
        raise
    except zipfile.BadZipFile as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise GraderError(
            f"{display(archive.name)}: not a zip archive, or a damaged one ({_first(exc)})"
        ) from None
    except READ_ERRORS as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise GraderError(f"{display(archive.name)}: cannot be extracted ({_first(exc)})") from None
    return target


def _first(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return line if len(line) <= 200 else line[:200] + "..."


def _open_archive(archive: Path) -> BinaryIO:
    """The archive opened for reading: a regular file, not through a link, not too large."""
    why = not_regular(os.lstat(archive).st_mode)
    if why:
        raise GraderError(f"{display(archive.name)}: {why}")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    file = os.fdopen(os.open(archive, flags), "rb")
    status = os.fstat(file.fileno())
    why = not_regular(status.st_mode)
    if why or status.st_size > MAX_ARCHIVE_BYTES:
        file.close()
        raise GraderError(f"{display(archive.name)}: {why or f'over {MAX_ARCHIVE_BYTES:,} bytes'}")
    return file


def _checked(archive: Path, infos: list[zipfile.ZipInfo]) -> list[_Member]:
    """Every member, each refused (a GraderError naming it) unless safe to write."""
    if len(infos) > MAX_ZIP_FILES:
        raise GraderError(f"{display(archive.name)}: {len(infos)} files, over {MAX_ZIP_FILES}")
    if sum(i.file_size for i in infos) > MAX_ZIP_BYTES:
        raise GraderError(f"{display(archive.name)}: over {MAX_ZIP_BYTES:,} bytes once extracted")
    kinds: dict[tuple[str, ...], str] = {}
    members = []
    for info in infos:
        where = f"{display(archive.name)}: {shown(info.filename)}"
        why = _refused(info)
        if why:
            raise GraderError(f"{where}: {why}")
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        is_dir = info.filename.endswith(("/", "\\"))
        if not parts:
            if is_dir:
                continue
            raise GraderError(f"{where}: a file without a name")
        for depth in range(1, len(parts) + (0 if is_dir else -1) + 1):
            if kinds.setdefault(parts[:depth], "folder") != "folder":
                raise GraderError(f"{where}: {shown('/'.join(parts[:depth]))} is a file, too")
        if not is_dir:
            if parts in kinds:
                again = "given twice" if kinds[parts] == "file" else "a folder of that name, too"
                raise GraderError(f"{where}: {again}")
            kinds[parts] = "file"
        members.append(_Member(info, parts, is_dir))
    return members


def _refused(info: zipfile.ZipInfo) -> str | None:
    """Why one member is not extracted (None when it is fine), from its header alone."""
    if info.flag_bits & 0x1:
        return "encrypted: hand in a zip without a password"
    if info.compress_type not in METHODS:
        method = OTHER_METHODS.get(info.compress_type, "unknown")
        return (
            f"compressed with method {info.compress_type} ({method}): zip it again with the "
            "usual (deflate) compression"
        )
    mode = info.external_attr >> 16
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "a symbolic link" if stat.S_ISLNK(mode) else "not a file or a folder"
    name = info.filename.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if name.startswith("/") or ".." in parts:
        return "points outside the archive"
    if any(len(p.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for p in parts):
        return f"a name over {MAX_NAME_BYTES} bytes"
    if len(name.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES or len(parts) > MAX_DEPTH:
        return f"a path over {MAX_PATH_BYTES} bytes or {MAX_DEPTH} folders deep"
    return None


def _fresh(target: Path) -> None:
    """`target` as an empty directory (a re-run's earlier extraction removed)."""
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True, mode=0o700)


def _write_all(
    archive: Path, zipped: zipfile.ZipFile, members: list[_Member], target: Path
) -> None:
    budget = MAX_ZIP_BYTES
    root = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for member in members:
            folders = member.parts if member.is_dir else member.parts[:-1]
            opened: list[int] = []
            try:
                parent = root
                for part in folders:
                    parent = _subfolder(parent, part)
                    opened.append(parent)
                if not member.is_dir:
                    budget -= _write_file(archive, zipped, member, parent, budget)
            finally:
                for descriptor in opened:
                    os.close(descriptor)
    finally:
        os.close(root)


def _subfolder(parent: int, name: str) -> int:
    with contextlib.suppress(FileExistsError):  # made for an earlier member
        os.mkdir(name, 0o700, dir_fd=parent)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    return os.open(name, flags, dir_fd=parent)


def _write_file(
    archive: Path, zipped: zipfile.ZipFile, member: _Member, parent: int, budget: int
) -> int:
    """Write one member; the number of bytes written (never over its declared size or the
    archive's remaining `budget`)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    allowed = min(member.info.file_size, budget)
    written = 0
    descriptor = os.open(member.parts[-1], flags, 0o600, dir_fd=parent)
    with os.fdopen(descriptor, "wb") as sink, zipped.open(member.info) as source:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > allowed:
                raise GraderError(
                    f"{display(archive.name)}: {shown(member.info.filename)}: more bytes than "
                    "its header says, or over the archive's limit"
                )
            sink.write(chunk)
    return written

"""Which isolation native code gets here (bubblewrap, a user of its own, or none with
--unsafe-no-sandbox), failing closed where there is none; and what `grader doctor` says of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from grader import program_cache
from grader.errors import GraderError
from grader.sandbox import identity, seccomp
from grader.sandbox.bwrap import bwrap_command, drop_to
from grader.sandbox.settings import BWRAP_ENV, HIDE_ENV, clean_env, unsafe

Mode = Literal["bubblewrap", "user", "none"]


def bwrap_path() -> str | None:
    chosen = os.environ.get(BWRAP_ENV)
    if chosen == "none":
        return None
    return shutil.which(chosen or "bwrap")


@cache
def _probe_bubblewrap(bwrap: str, uid: int) -> str | None:
    """None when bubblewrap starts here with every option the sandbox uses, else why not."""
    # named as a grading scope is (sandbox/scope.py's PREFIX and this process's id): what a
    # grader killed during the probe leaves, the next one removes
    with tempfile.TemporaryDirectory(prefix=f"grader-run-{os.getpid()}-probe-") as work:
        if identity.is_root():
            os.chown(work, uid, uid)
        try:
            with bwrap_command(bwrap, ["/bin/true"], Path(work), False) as (argv, fds):
                done = subprocess.run(
                    argv, capture_output=True, text=True, errors="replace", pass_fds=fds,
                    preexec_fn=drop_to(uid), env=clean_env(), timeout=30, check=False,
                )  # fmt: skip
        except (OSError, subprocess.SubprocessError, GraderError) as exc:
            return str(exc)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return None


def mode(hidden_too: Sequence[Path] = ()) -> Mode:
    """How native code will be isolated here; GraderError when it cannot be (fails closed).
    `hidden_too`: paths the program must not read beyond GRADER_SANDBOX_HIDE's."""
    if unsafe():
        return "none"
    uid = identity.sandbox_uid()
    bwrap = bwrap_path()
    why = _probe_bubblewrap(bwrap, uid) if bwrap else "bubblewrap is not installed"
    if why is None:
        return "bubblewrap"
    if identity.is_root():
        seccomp.program(writes=False)  # fails (GraderError) where libseccomp is missing
        _check_hidden(hidden_too)
        return "user"
    raise GraderError(
        f"no isolation for students' native code here: {why}, and only root can run it as a "
        "user of its own. Install bubblewrap (apt-get install bubblewrap), or run as root; "
        "--unsafe-no-sandbox runs it unisolated (only for your own code)"
    )


def hidden() -> list[Path]:
    return [Path(p) for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p]


def others_can(path: Path, bits: int) -> bool:
    """Whether a user with no relation to the owner and group of `path` and the folders above
    it (the sandbox's user) can reach it (every folder above searchable by others) and use it
    as `bits` of the others' permission bits allow (0o001 search, 0o004 read, either: 0o005)."""
    try:
        path = path.resolve(strict=True)
        return all(f.stat().st_mode & 0o001 for f in path.parents) and bool(
            path.stat().st_mode & bits
        )
    except OSError:
        return False


def readable_by_others(path: Path) -> bool:
    """Whether the sandbox's user could read `path` (or search it, a folder)."""
    return others_can(path, 0o005)


def _check_hidden(hidden_too: Sequence[Path]) -> None:
    """Without bubblewrap the program sees the host's files as any user does: the solutions,
    the submissions, the results and the cache of compiled programs must not be readable by
    others, or nothing runs."""
    for path in [*hidden(), *hidden_too, program_cache.cache_dir()]:
        if readable_by_others(path):
            raise GraderError(
                f"{path}: readable by any user, so by students' programs here (no bubblewrap): "
                f"chmod o-rwx {path} (or a folder above it) and grade again"
            )


def describe(hidden_too: Sequence[Path] = ()) -> tuple[bool, str]:
    """Whether students' native code can run isolated here, and how (for `grader doctor`)."""
    try:
        chosen = mode(hidden_too)
    except GraderError as exc:
        return False, str(exc)
    if chosen == "none":
        return False, "off (--unsafe-no-sandbox): students' programs run unisolated"
    if chosen == "bubblewrap":
        who = "each grading's own unprivileged user" if identity.is_root() else "you"
        return True, f"bubblewrap and seccomp, as {who}"
    bwrap = bwrap_path()
    why = _probe_bubblewrap(bwrap, identity.sandbox_uid()) if bwrap else "not installed"
    return True, f"seccomp, as each grading's own unprivileged user; no bubblewrap ({why})"

"""The instructor's secret, mixed into every batch grading's seed: a student who knows the
public seed (or the grader's code) still cannot predict the matrices their kernel will be given.

The secret lives in the output directory (`secret.key`, readable by its owner only), so a resumed
or re-graded batch draws the same inputs; GRADER_SECRET overrides it (one secret for several
output directories). The effective seed of each grading is in its report, so a student can
reproduce a failure afterwards with `grader check --seed N`."""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from grader.errors import GraderError

SECRET_ENV = "GRADER_SECRET"
SECRET_FILE = "secret.key"


def load_or_create(out: Path) -> bytes:
    configured = os.environ.get(SECRET_ENV)
    if configured:
        return configured.encode()
    path = out / SECRET_FILE
    if not path.exists():
        # written whole under another name, then linked into place: a batch killed at any moment
        # leaves either no secret or a complete one, and two starting together agree on one
        temporary = out / f".{SECRET_FILE}.{os.getpid()}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(secrets.token_hex(32).encode())
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    secret = path.read_bytes()
    if len(secret) < 32:
        raise GraderError(
            f"{path}: the batch secret is damaged (too short); restore it or delete it"
        )
    return secret


def mixed_seed(secret: bytes, public: int | None, student: str, exercise: str) -> int:
    """The seed a grading runs with: unpredictable without the secret, the same on every run
    with it (for the same public seed, student and exercise)."""
    material = b"\0".join([secret, str(public).encode(), student.encode(), exercise.encode()])
    return int.from_bytes(hashlib.sha256(material).digest()[:4], "little") & 0x7FFFFFFF

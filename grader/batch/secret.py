"""The instructor's secret, mixed into every batch grading's seed with the submission's content:
a student who knows the public seed (or the grader's code) still cannot predict the matrices their
kernel will be given, and a changed submission is given new ones.

The secret lives in the output directory (`secret.key`, readable by its owner only), so a resumed
or re-graded batch draws the same inputs for the same files; GRADER_SECRET overrides it (one
secret for several output directories). The effective seed of each grading is the instructor's:
it is kept in the results database (reproduce with `grader check --seed N`) and left out of
everything handed to the student (Report.for_student): a seed in last week's feedback would
otherwise tell the inputs of this week's re-grade."""

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


def mixed_seed(
    secret: bytes, public: int | None, student: str, exercise: str, submission: str = ""
) -> int:
    """The seed a grading runs with: unpredictable without the secret, the same on every run
    with it for the same public seed, student, exercise and `submission` (the digest of the
    kernel's and the answers' bytes, batch.store.source_hash), different once a file changes."""
    parts = [secret, str(public).encode(), student.encode(), exercise.encode(), submission.encode()]
    # each part's length first: no two different lists of parts give the same bytes
    material = b"".join(len(part).to_bytes(8, "little") + part for part in parts)
    return int.from_bytes(hashlib.sha256(material).digest()[:4], "little") & 0x7FFFFFFF


def submission_seed(
    secret: bytes, public: int | None, student: str, exercise: str, *files: bytes
) -> int:
    """mixed_seed of a submission given as its files' bytes (the kernel's, then the answers',
    b"" for a missing one), digested as the results database digests them."""
    from grader.batch.store import source_hash

    return mixed_seed(secret, public, student, exercise, source_hash(*files))

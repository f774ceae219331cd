"""The one error type for expected failures: caught at the top, printed in one line."""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2


class GraderError(Exception):
    """An expected failure (bad input, missing set-up) with a one-line message for the user.

    The message says what is wrong and where (file, key, line); `exit_code` is what the process
    returns when it reaches the top level.
    """

    def __init__(self, message: str, *, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code

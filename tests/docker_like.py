"""Run a command as it runs in a Docker container with Docker's default seccomp profile (so in
Gradescope's autograder): no new user namespaces, so bubblewrap cannot start.

    python -m tests.docker_like COMMAND [ARGS...]
"""

from __future__ import annotations

import os
import sys

CLONE_NEWUSER = 0x10000000


def refuse_user_namespaces() -> None:
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.add_rule(seccomp.ERRNO(1), "unshare")
    rules.add_rule(seccomp.ERRNO(38), "clone3")
    rules.add_rule(
        seccomp.ERRNO(1), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)
    )
    rules.load()


if __name__ == "__main__":
    refuse_user_namespaces()
    os.execvp(sys.argv[1], sys.argv[1:])

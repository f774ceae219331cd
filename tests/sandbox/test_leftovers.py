"""What a student's program could leave for later gradings: a process the sweep of its sandbox
user must kill though /proc shows it as a zombie, and the grading child's own stdin (in a
serving child, the pipe the next jobs come on), which no sandboxed command may inherit. Both
found by a red-team pass of the reuse of CPU grading children."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import sandbox
from grader.sandbox import identity

_SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())

# its first thread ends with the exit system call (not exit_group): /proc shows the process as a
# zombie, while the thread it started runs on
HIDDEN = """
import ctypes, os, sys, threading, time
os.setresgid({uid}, {uid}, {uid})
os.setresuid({uid}, {uid}, {uid})
threading.Thread(target=time.sleep, args=(120,)).start()
ctypes.CDLL(None).syscall({sys_exit}, 0)
"""


def _state(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rfind(")") + 2 :][:1]


@pytest.mark.skipif(not identity.is_root(), reason="sandbox users of their own need root")
@pytest.mark.skipif(_SYS_EXIT is None, reason=f"no exit system call known on {platform.machine()}")
def test_the_sweep_kills_a_process_that_looks_like_a_zombie_but_runs() -> None:
    slot = identity.acquire()
    script = HIDDEN.format(uid=slot.uid, sys_exit=_SYS_EXIT)
    hidden = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        while _state(hidden.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(hidden.pid) == "Z"
        tasks = os.listdir(f"/proc/{hidden.pid}/task")
        assert any(_state(int(t)) != "Z" for t in tasks)  # its thread runs on
        identity.sweep(slot.uid)
        hidden.wait(timeout=10)  # killed, and now really ended (else: TimeoutExpired)
    finally:
        if hidden.poll() is None:
            hidden.kill()
            hidden.wait()
        slot.release()


def test_a_sandboxed_command_does_not_inherit_the_grader_s_stdin() -> None:
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)  # as in a serving child: its jobs come on stdin
    try:
        with sandbox.private_workdir("grader-test-") as work:
            done = sandbox.run(["/usr/bin/readlink", "/proc/self/fd/0"], work, timeout=60)
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "/dev/null"

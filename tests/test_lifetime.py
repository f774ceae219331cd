"""A process the grader starts dies with the grader, even when the grader is killed with SIGKILL
(no clean-up runs): nothing is left spinning with nobody to enforce its time limit."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

CHILD = """
import sys, time
from grader.lifetime import die_with_parent
die_with_parent()
print("ready", flush=True)
time.sleep(3600)  # a child that would run for an hour
"""
PARENT = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {CHILD!r}])
print(child.pid, flush=True)
time.sleep(3600)  # a grader that is killed, never finishes
"""


def test_a_child_dies_when_its_parent_is_killed_with_sigkill() -> None:
    command = [sys.executable, "-c", PARENT]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True) as parent:
        assert parent.stdout is not None
        try:
            child = int(parent.stdout.readline())
            assert parent.stdout.readline() == "ready\n"  # the request is made: it holds now
            handle = os.pidfd_open(child)
        finally:
            parent.send_signal(signal.SIGKILL)
    ended: list[int] = []
    try:
        # readable once the child has ended; 30 s bounds a failure on a loaded machine
        ended, _, _ = select.select([handle], [], [], 30)
        assert ended, f"the child {child} outlived its killed parent"
    finally:
        os.close(handle)
        if not ended:
            os.kill(child, signal.SIGKILL)

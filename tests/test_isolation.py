"""The isolation layer with stand-in children that hang, crash or lose their context."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.checks.base import PlannedCheck
from grader.expectations import Expectation
from grader.isolation import run_isolated
from grader.job import Job
from tests.conftest import ROOT
from tests.processes import command, descendants, grading_children

PLANNED = [PlannedCheck(f"check {i}", "correctness", 1.0) for i in range(4)]
JOB = Job(spec={}, source_text="", display_name="k.cu", seed=1)

FAKE_WORKER = r"""
import json, os, struct, sys, time
mode, fd = sys.argv[1], int(sys.argv[2])
job = json.loads(sys.stdin.read())
out = os.fdopen(fd, "wb", buffering=0)
def send(event):  # the channel's framing: a 4-byte big-endian length, then the JSON
    body = json.dumps(event).encode()
    out.write(struct.pack(">I", len(body)) + body)
send({"event": "device", "device": {"backend": "gpu", "name": "fake", "detail": ""}})
for i in range(4):
    name = f"check {i}"
    if name in job["done"]:
        continue
    if i == 2 and mode == "hang":
        time.sleep(3600)
    if i == 1 and mode == "hog":
        import subprocess  # a grandchild (like the CPU backend's program) fills memory
        grab = "b = []\nwhile True: b.append(bytearray(8 << 20))"
        subprocess.run([sys.executable, "-c", grab])
    if i == 1 and mode == "garbage" and not job["done"]:
        out.write(struct.pack(">I", 9) + b"not json!")  # a frame, but not an event
        time.sleep(3600)  # it is stopped, not waited for
    if i == 1 and mode == "crash" and not job["done"]:
        print("CUDA error: an illegal memory access was encountered", file=sys.stderr)
        os._exit(134)
    result = {"name": name, "kind": "correctness", "status": "passed", "score": 1.0,
              "max_score": 1.0, "message": f"ok from pid {os.getpid()}", "symptoms": []}
    if mode == "reason":  # check 0 fails for the reason sought; a later child says what it knew
        result["status"] = "failed" if i == 0 else "passed"
        result["message"] = "reads outside A or B" if i == 0 else str(job["reason_found"])
    send({"event": "result", "result": result})
    if i == 0 and mode in ("context", "reason"):
        sys.exit(3)
"""


@pytest.fixture
def fake_worker(tmp_path: Path) -> Path:
    path = tmp_path / "fake_worker.py"
    path.write_text(FAKE_WORKER)
    return path


@pytest.mark.slow
def test_a_hang_fails_that_check_after_the_limit_and_skips_the_rest(fake_worker: Path) -> None:
    start = time.monotonic()
    device, results, _ = run_isolated(JOB, PLANNED, 1.0, [sys.executable, str(fake_worker), "hang"])
    # the promise: a hang is stopped at its limit (1 s), not when it ends; 20 s leaves room for
    # starting Python twice on a loaded machine, and is far short of the hour the child sleeps
    assert time.monotonic() - start < 20
    assert [r.status for r in results] == ["passed", "passed", "failed", "skipped"]
    assert "time limit of 1 s" in results[2].message
    assert results[3].message == "not run: the kernel hit the time limit in 'check 2'"
    assert device.name == "fake"


@pytest.mark.slow
def test_a_compile_that_never_ends_is_named_as_such(fake_worker: Path) -> None:
    planned = [*PLANNED[:2], PlannedCheck("check 2", "compile", 1.0), PLANNED[3]]
    _, results, _ = run_isolated(JOB, planned, 1.0, [sys.executable, str(fake_worker), "hang"])
    assert results[2].message.startswith("the compiler did not finish within the time limit")


def test_a_grading_that_fills_memory_is_stopped_and_named(
    fake_worker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_MEMORY_MB", "300")
    start = time.monotonic()
    _, results, _ = run_isolated(JOB, PLANNED, 60.0, [sys.executable, str(fake_worker), "hog"])
    assert time.monotonic() - start < 30  # the memory watch, not the 60 s time limit, stopped it
    assert [r.status for r in results] == ["passed", "failed", "skipped", "skipped"]
    assert results[1].message == (
        "the grading process used more than 300 MB of host memory and was stopped "
        "(GRADER_MEMORY_MB sets the limit)"
    )
    assert results[1].symptoms == ("memory",)
    assert results[2].message == "not run: the kernel hit the memory limit in 'check 1'"


def test_a_crash_costs_only_the_running_check(fake_worker: Path) -> None:
    _, results, _ = run_isolated(JOB, PLANNED, 10.0, [sys.executable, str(fake_worker), "crash"])
    assert [r.status for r in results] == ["passed", "error", "passed", "passed"]
    assert "exited with code 134: CUDA error: an illegal memory access" in results[1].message


def test_a_frame_that_is_not_an_event_stops_the_child_and_errs_that_check_only(
    fake_worker: Path,
) -> None:
    _, results, _ = run_isolated(JOB, PLANNED, 60.0, [sys.executable, str(fake_worker), "garbage"])
    assert [r.status for r in results] == ["passed", "error", "passed", "passed"]
    assert results[1].message.startswith(
        "the grading process sent what is not an event (not an event: Invalid JSON"
    )
    assert results[1].symptoms == ("crash",)


def test_a_child_that_exits_after_a_lost_context_is_replaced(fake_worker: Path) -> None:
    _, results, _ = run_isolated(JOB, PLANNED, 10.0, [sys.executable, str(fake_worker), "context"])
    assert [r.status for r in results] == ["passed"] * 4
    pids = {r.message for r in results}
    assert len(pids) == 2  # check 0 from the first child, the rest from a second one


def test_a_fresh_child_hears_that_an_earlier_one_found_the_reason_validate_seeks(
    fake_worker: Path,
) -> None:
    job = replace(JOB, stop_at=(Expectation("correctness", "outside A or B"),))
    fake = [sys.executable, str(fake_worker), "reason"]
    _, results, _ = run_isolated(job, PLANNED, 10.0, fake)
    assert [r.message for r in results[1:]] == ["True"] * 3  # and so it would stop at once
    _, results, _ = run_isolated(replace(job, stop_at=()), PLANNED, 10.0, fake)
    assert [r.message for r in results[1:]] == ["False"] * 3


def _running_the_kernel(grader: subprocess.Popen[bytes]) -> tuple[list[int], list[int]]:
    """The grader's grading children and the processes that run the student's program under
    them, once the program runs (it runs the endless kernel from its first launch)."""
    deadline = time.monotonic() + 120  # a bound on a failure only: the wait is for the state
    while grader.poll() is None and time.monotonic() < deadline:
        workers = grading_children(grader.pid)
        programs = [
            p for w in workers for p in descendants(w) if command(p).endswith(b"/program\0")
        ]
        if programs:
            return workers, programs
        # nothing to select on: a process appearing under another is seen only in /proc
        time.sleep(0.05)
    raise AssertionError(f"the kernel never ran (grader exit code {grader.poll()})")


def _wait_for_exits(pids: list[int], seconds: float) -> list[int]:
    """Those of `pids` still running after `seconds`: each process's pidfd becomes readable
    when it ends (a zombie has ended)."""
    handles = {}
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # already gone and reaped
            handles[os.pidfd_open(pid)] = pid
    deadline = time.monotonic() + seconds
    try:
        while handles and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select(list(handles), [], [], left)
            for fd in ready:
                os.close(fd)
                del handles[fd]
        return sorted(handles.values())
    finally:
        for fd in handles:
            os.close(fd)


@pytest.mark.slow
def test_a_grading_child_and_its_kernel_die_with_a_killed_grader() -> None:
    """kill -9 of `grader check` (or of a batch) must not leave a hanging kernel running."""
    kernel = ROOT / "solutions/ex1-non-square/wrong/endless_loop.cu"
    grader = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", "ex1", "--backend", "cpu", "--file", str(kernel)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers, programs = _running_the_kernel(grader)
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    # a promise to the user (nothing keeps running), given 30 s on a loaded machine
    alive = _wait_for_exits(workers + programs, 30.0)
    assert alive == [], f"{alive} of {workers} (children) and {programs} (programs) outlived it"

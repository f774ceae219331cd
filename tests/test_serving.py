"""Serving children (children.serving, grader.worker --serve): a batch's or validate's child
grades job after job, and one that cannot go on is replaced, without a verdict changing.
Stand-in children here; the real worker on the CPU backend at the end, and on a GPU in
tests/test_gpu.py."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from grader import children
from grader.checks.base import PlannedCheck
from grader.children import serving
from grader.course import load_course
from grader.grading import grade
from grader.isolation import advance, run_isolated
from grader.job import Job
from grader.results import CheckKind
from grader.sandbox import identity
from grader.source import read_source
from tests.processes import command, descendants

PLANNED = [PlannedCheck(f"check {i}", CheckKind.CORRECTNESS, 1.0) for i in range(2)]

FAKE_SERVER = r"""
import json, os, struct, sys, time
out = os.fdopen(int(sys.argv[1]), "wb", buffering=0)
assert sys.argv[3] == "--serve"
def send(event):
    body = json.dumps(event).encode()
    out.write(struct.pack(">I", len(body)) + body)
def result(name, message):
    return {"event": "result", "result": {"name": name, "kind": "correctness",
            "status": "passed", "score": 1.0, "max_score": 1.0, "message": message,
            "symptoms": []}}
while True:
    header = sys.stdin.buffer.read(4)
    if len(header) < 4:
        sys.exit(0)
    job = json.loads(sys.stdin.buffer.read(struct.unpack(">I", header)[0]))
    mode = job["source_text"]
    send({"event": "device", "device": {"backend": "gpu", "name": "fake", "detail": ""}})
    left = sorted(os.listdir(os.environ["TMPDIR"]))
    zombie = ""
    if mode == "zombie":  # a process of the sandbox's user, ended, whose parent is this child
        pid = os.fork()
        if pid == 0:
            os.setuid(int(os.environ["GRADER_SANDBOX_UID"]))
            os._exit(0)
        while open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.01)
        zombie = f" zombie {pid}"
    for i in range(2):
        name = f"check {i}"
        if name in job["done"]:
            continue
        if i == 1 and mode == "crash" and not job["done"]:
            os._exit(134)
        if i == 1 and mode == "hang":
            time.sleep(3600)
        if i == 1 and job.get("defer_timing"):  # check 1 stands for a timed check
            break
        uid = os.environ.get("GRADER_SANDBOX_UID")
        send(result(name, f"pid {os.getpid()} uid {uid} found {left}{zombie}"))
    if job.get("defer_timing") and "check 1" not in job["done"]:
        send({"event": "finished", "code": 4, "reusable": True})  # stopped before it
        continue
    if mode == "litter":
        open(os.path.join(os.environ["TMPDIR"], "answers-of-the-last-student"), "w").close()
        print("the last student's secret", file=sys.stderr, flush=True)
    code = 3 if mode in ("context", "slow exit") else 0
    send({"event": "finished", "code": code, "reusable": code == 0})
    if mode == "slow exit":  # a broken CUDA context's teardown, drawn out
        time.sleep(60)
    if code:
        sys.exit(code)
"""


@pytest.fixture
def server(tmp_path: Path) -> list[str]:
    path = tmp_path / "fake_server.py"
    path.write_text(FAKE_SERVER)
    return [sys.executable, str(path)]


def _grade(mode: str, command: list[str], time_limit: float = 30.0) -> list[str]:
    job = Job(spec={}, source_text=mode, display_name="k.cu", seed=1)
    _device, results, _stages = run_isolated(job, PLANNED, time_limit, command)
    return [f"{r.status} {r.message}" for r in results]


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _pid(line: str) -> int:
    return int(line.split()[2])


def test_a_deferred_grading_stops_before_its_timed_check_and_goes_on_in_the_same_child(
    server: list[str],
) -> None:
    job = Job(spec={}, source_text="ok", display_name="k.cu", seed=1, defer_timing=True)
    with serving():
        first = advance(job, PLANNED, 30.0, server)
        assert first.deferred and list(first.results) == ["check 0"]
        rest = advance(replace(job, defer_timing=False), PLANNED, 30.0, server, so_far=first)
    assert not rest.deferred and list(rest.results) == ["check 0", "check 1"]
    assert {r.status for r in rest.results.values()} == {"passed"}
    # one child, kept across the pause: deferring costs no new CUDA context
    assert len({r.message.split()[1] for r in rest.results.values()}) == 1


def test_one_child_grades_job_after_job_inside_serving(server: list[str]) -> None:
    with serving():
        lines = [line for _ in range(3) for line in _grade("ok", server)]
    assert all(line.startswith("passed pid ") for line in lines)
    (child,) = {_pid(line) for line in lines}
    assert not Path(f"/proc/{child}").exists() or _zombie(child)  # ended with the block


def test_a_crash_costs_its_check_only_and_a_fresh_child_takes_the_rest(
    server: list[str],
) -> None:
    with serving():
        before = _grade("ok", server)
        crashed = _grade("crash", server)
        after = [_grade("ok", server), _grade("ok", server)]
    assert crashed[0].startswith("passed") and crashed[1].startswith("error")
    assert "the grading process exited with code 134" in crashed[1]
    assert [line.split()[0] for lines in after for line in lines] == ["passed"] * 4
    assert _pid(after[0][0]) != _pid(before[0])  # replaced...
    assert _pid(after[0][0]) == _pid(after[1][0])  # ...and the replacement serves on


def test_a_lost_context_ends_the_child_and_the_next_job_gets_a_fresh_one(
    server: list[str],
) -> None:
    with serving():
        lost = _grade("context", server)
        after = _grade("ok", server)
    assert [line.split()[0] for line in lost + after] == ["passed"] * 4
    assert _pid(after[0]) != _pid(lost[0])


def test_a_grading_does_not_wait_for_a_child_that_cannot_serve_on_to_exit(
    server: list[str],
) -> None:
    # the child's results are out; its exit (a lost CUDA context's teardown on a GPU) is waited
    # for in the background, and the serving block ends it
    with serving():
        start = time.monotonic()
        lost = _grade("slow exit", server)
        after = _grade("ok", server)
        waited = time.monotonic() - start
    assert [line.split()[0] for line in lost + after] == ["passed"] * 4
    assert waited < 30, f"the grading waited {waited:.0f} s for the child's 60 s exit"
    assert _pid(after[0]) != _pid(lost[0])
    assert not Path(f"/proc/{_pid(lost[0])}").exists() or _zombie(_pid(lost[0]))


def test_a_child_whose_replacement_cannot_start_is_still_ended(
    server: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_spawn = children.spawn
    with serving():
        lost = _grade("context", server)  # started its child, ended it, started a replacement
        monkeypatch.setattr(children, "spawn", _refused)
        with pytest.raises(OSError, match="no more processes"):
            _grade("slow exit", server)  # its child's replacement cannot start
        monkeypatch.setattr(children, "spawn", real_spawn)
    assert not Path(f"/proc/{_pid(lost[0])}").exists() or _zombie(_pid(lost[0]))
    for pid in _server_pids():
        assert _zombie(pid), f"a child of the batch is still running: {pid}"


def _refused(*args: Any, **kwargs: Any) -> children.Spawned:
    raise OSError("no more processes")


def _server_pids() -> list[int]:
    """This process's stand-in children (not another test worker's)."""
    return [pid for pid in descendants(os.getpid()) if b"fake_server.py" in command(pid)]


@pytest.fixture
def spawned_pids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pid of every child started, in order."""
    pids: list[int] = []
    real_spawn = children.spawn

    def noted(*args: Any, **kwargs: Any) -> children.Spawned:
        child = real_spawn(*args, **kwargs)
        pids.append(child.process.pid)
        return child

    monkeypatch.setattr(children, "spawn", noted)
    return pids


def test_with_a_spare_the_job_after_a_crash_takes_a_child_started_before_it(
    server: list[str], spawned_pids: list[int]
) -> None:
    # in a batch, a kernel that loses its CUDA context goes on in a fresh child for each check
    # after it: the next child must be started already, not started then
    with serving(spares=1):
        _grade("ok", server)
        started_before = list(spawned_pids)
        assert len(started_before) == 2  # the one at work, and a spare
        crashed = _grade("crash", server)
        after = _grade("ok", server)
    assert "exited with code 134" in crashed[1]
    assert _pid(after[0]) in started_before and _pid(after[0]) != _pid(crashed[0])
    assert len(spawned_pids) == 3  # the crashed child's replacement, no more


def test_spares_wait_while_the_child_back_from_a_job_takes_the_next(
    server: list[str], spawned_pids: list[int]
) -> None:
    # the child that just served has CuPy's caches and handles warm: the spares stay for
    # children that die
    with serving(spares=2):
        lines = [_grade("ok", server)[0] for _ in range(3)]
    assert len(spawned_pids) == 3
    assert {_pid(line) for line in lines} == {spawned_pids[0]}


def test_warm_children_are_started_before_any_grading_takes_one(
    server: list[str], spawned_pids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(children, "worker_command", lambda: server)
    with serving():
        children.warm("auto", {}, 2)
        assert len(spawned_pids) == 2
        first, second = _grade("ok", server), _grade("ok", server)
    assert len(spawned_pids) == 2  # the gradings took warm children, none started for them
    assert {_pid(first[0]), _pid(second[0])} <= set(spawned_pids)


@pytest.mark.slow
def test_a_hang_is_stopped_at_its_limit_and_the_batch_goes_on(server: list[str]) -> None:
    with serving():
        hung = _grade("hang", server, time_limit=1.0)
        after = _grade("ok", server)
    assert hung[0].startswith("passed") and hung[1].startswith("failed")
    assert "time limit of 1 s" in hung[1]
    assert [line.split()[0] for line in after] == ["passed", "passed"]
    assert _pid(after[0]) != _pid(hung[0])


def test_nothing_a_job_left_reaches_the_next_one(server: list[str]) -> None:
    with serving():
        _grade("litter", server)
        after = _grade("ok", server)
        crashed = _grade("crash", server)
    assert after[0].endswith("found []")  # its files are gone from the child's TMPDIR
    assert _pid(after[0]) == _pid(crashed[0])  # the same child, whose stderr...
    assert "secret" not in crashed[1]  # ...is the crashed job's alone


@pytest.mark.skipif(
    not identity.is_root(), reason="a sandbox user of its own needs root (else programs run as you)"
)
def test_a_child_whose_sandbox_user_left_a_zombie_is_not_reused(server: list[str]) -> None:
    """A program that clones with CLONE_PARENT makes the grading child the parent of processes
    the sweep cannot reap; reused, the child would start the next submission with its user's
    process limit spent (a red-team pass filled it: the next right kernel could not build)."""
    with serving():
        zombie = _grade("zombie", server)
        after = _grade("ok", server)
        again = _grade("ok", server)
    assert _pid(after[0]) != _pid(zombie[0])  # ended, its zombies handed to the grader
    assert _pid(again[0]) == _pid(after[0])  # a clean job's child serves on
    # and reaped: the zombie itself, not whatever runs as its user now (a grading of another
    # test beside this one may hold that slot since)
    left = int(zombie[0].rsplit("zombie ", 1)[1])
    assert not Path(f"/proc/{left}").exists() or not _zombie(left)


@pytest.mark.slow
def test_the_real_worker_serving_job_after_job_gives_each_submission_its_own_verdict(
    small_course: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercise = load_course(small_course).find("ex1")
    solutions = small_course / "solutions/ex1-non-square"
    kernels = [solutions / "kernel.cu", solutions / "wrong/floor_tiles.cu", solutions / "kernel.cu"]

    def verdicts() -> list[list[tuple[str, str, float]]]:
        reports = [grade(exercise, read_source(k), seed=7, backend="cpu") for k in kernels]
        return [[(c.name, c.status, c.score) for c in r.checks] for r in reports]

    one_shot = verdicts()
    started: list[str] = []
    real_spawn = children.spawn

    def counted(*args: Any, **kwargs: Any) -> children.Spawned:
        started.append(args[0])
        return real_spawn(*args, **kwargs)

    monkeypatch.setattr(children, "spawn", counted)
    with serving():
        served = verdicts()
    assert served == one_shot
    assert started == ["cpu"]  # one child graded all three
    assert {status for checks in served[1:2] for _, status, _ in checks} & {"failed"}
    assert all(status == "passed" for _, status, _ in served[0] + served[2])


def test_grading_children_run_numpys_blas_on_one_thread() -> None:
    # one grading per core already: OpenBLAS's own threads only spin (14 % of a CPU batch)
    child = children.spawn(
        "none",
        {},
        [
            sys.executable,
            "-c",
            "import os, sys; sys.exit(0 if os.environ.get('OPENBLAS_NUM_THREADS') == '1' else 7)",
        ],
    )
    try:
        assert child.process.wait(timeout=60) == 0
    finally:
        child.close()

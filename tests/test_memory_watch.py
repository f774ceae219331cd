"""What counts against a grading's memory limit: the grading child, its process group, its
descendants in sessions of their own (the sandbox starts one), and every process of the
grading's sandbox user; nothing else on the machine. Read from a /proc written by the test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.memory_watch import LIMIT_ENV, limit_bytes, resident_bytes

PAGE = os.sysconf("SC_PAGE_SIZE")


def _process(proc: Path, pid: int, parent: int, group: int, pages: int, name: str = "p") -> Path:
    entry = proc / str(pid)
    entry.mkdir()
    # the fields /proc/PID/stat holds after the name: state, parent, group, ..., resident pages
    fields = ["S", str(parent), str(group), *["0"] * 18, str(pages), "0", "0"]
    (entry / "stat").write_text(f"{pid} ({name}) {' '.join(fields)}\n")
    return entry


@pytest.fixture
def proc(tmp_path: Path) -> Path:
    proc = tmp_path / "proc"
    proc.mkdir()
    _process(proc, 1, 0, 1, 1000)  # init: not the grading's
    _process(proc, 50, 1, 50, 2000)  # the grader itself: not counted
    _process(proc, 100, 50, 100, 10, name="python -m grader.worker")  # the grading child
    _process(proc, 101, 100, 100, 20, name="g++ (cc1plus)")  # its group; a name with ) in it
    _process(proc, 102, 100, 102, 30)  # the sandbox, in a session of its own
    _process(proc, 103, 102, 102, 40)  # the program, below it
    _process(proc, 200, 1, 200, 5000)  # someone else's work
    (proc / "self").mkdir()  # not a process
    return proc


def test_the_child_its_group_and_its_descendants_in_any_session_count(proc: Path) -> None:
    assert resident_bytes(100, proc=proc) == (10 + 20 + 30 + 40) * PAGE


def test_a_process_of_the_sandbox_user_counts_even_when_reparented(proc: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root (as CI runs)")
    sandbox_user = 1_900_000_001
    orphan = _process(proc, 300, 1, 300, 70)  # its parent died: init took it
    os.chown(orphan, sandbox_user, sandbox_user)
    assert resident_bytes(100, sandbox_user, proc) == (10 + 20 + 30 + 40 + 70) * PAGE
    assert resident_bytes(100, None, proc) == (10 + 20 + 30 + 40) * PAGE


def test_a_process_that_ends_while_it_is_read_is_left_out(proc: Path) -> None:
    (proc / "103" / "stat").unlink()  # gone between the listing and the read
    assert resident_bytes(100, proc=proc) == (10 + 20 + 30) * PAGE


def test_without_proc_nothing_is_counted(tmp_path: Path) -> None:
    assert resident_bytes(100, proc=tmp_path / "absent") == 0


def test_the_limit_is_8_gb_unless_the_environment_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LIMIT_ENV, raising=False)
    assert limit_bytes() == 8192 * 1024 * 1024
    monkeypatch.setenv(LIMIT_ENV, "300")
    assert limit_bytes() == 300 * 1024 * 1024


def test_watchers_of_many_children_share_one_recent_read(proc: Path) -> None:
    assert resident_bytes(100, proc=proc) == (10 + 20 + 30 + 40) * PAGE
    _process(proc, 104, 100, 100, 50)  # a new process: seen by a fresh read only
    assert resident_bytes(100, proc=proc, max_age=3600) == (10 + 20 + 30 + 40) * PAGE
    assert resident_bytes(100, proc=proc, max_age=0) == (10 + 20 + 30 + 40 + 50) * PAGE

"""Reading a file a student handed in: pipes, links and devices are refused without being opened
or waited on, and a file over the limit is refused with the limit."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from grader.bounded_read import read_bounded
from grader.errors import GraderError


def _promptly(action: Callable[[], object]) -> BaseException | None:
    """What `action` raised (None if nothing), failing the test if it takes over 10 s."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            action()
            outcome.append(None)
        except BaseException as exc:  # reported to the test
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert outcome, "still waiting after 10 s"
    return outcome[0]


def test_read_bounded_refuses_pipes_links_and_devices_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    expected = {
        "fifo": "fifo: not a regular file (a pipe)",
        "zero": "zero: a symbolic link; hand in the file itself, not a link",
        "link": "link: a symbolic link; hand in the file itself, not a link",
        tmp_path.name: f"{tmp_path.name}: is a directory, expected a file",
    }
    for name, message in expected.items():
        path = tmp_path / name if name != tmp_path.name else tmp_path
        error = _promptly(lambda path=path: read_bounded(path, 1000, path.name))
        assert isinstance(error, GraderError) and str(error) == message
    assert _promptly(lambda: read_bounded(Path("/dev/zero"), 1000)) is not None
    assert read_bounded(tmp_path / "link", 10, follow_links=True) == b"x"
    (tmp_path / "big").write_bytes(b"y" * 11)
    error = _promptly(lambda: read_bounded(tmp_path / "big", 10, "big"))
    assert str(error) == "big: over the limit of 10 bytes"

"""Extracting a student's zip: its files and folders and nothing else, and any damage to its
bytes a verdict or a one-line reason (the hostile zips, refused through discovery, are in
test_discover.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from grader.batch.unzip import extract
from grader.errors import GraderError
from tests.batch.zips import GOOD, write_zip


@pytest.mark.slow
def test_corrupting_any_bytes_of_a_zip_gives_a_verdict_or_one_line(tmp_path: Path) -> None:
    original = write_zip(
        tmp_path / "good.zip", {"ex4/kernel.cu": GOOD, "ex4/answers.yaml": b"a: 1"}
    )
    data = original.read_bytes()
    rng = random.Random(15)
    messages: list[str] = []
    for attempt in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        archive = tmp_path / f"d{attempt}.zip"
        archive.write_bytes(bytes(damaged))
        try:
            extract(archive, tmp_path / "work" / str(attempt))
        except GraderError as exc:  # anything else fails the test
            messages.append(str(exc).removeprefix(f"d{attempt}.zip: "))
    assert 0 < len(messages) < 300  # most refused, some still extract
    assert [m for m in messages if "\n" in m or m.startswith("d")] == []


def test_a_zip_is_extracted_with_its_folders_and_nothing_else(tmp_path: Path) -> None:
    write_zip(
        tmp_path / "s.zip", {"ex4/": b"", "ex4\\answers.yaml": b"a: 1", "ex4/kernel.cu": GOOD}
    )
    target = extract(tmp_path / "s.zip", tmp_path / "out")
    assert (target / "ex4/kernel.cu").read_bytes() == GOOD
    assert (target / "ex4/answers.yaml").read_bytes() == b"a: 1"  # a Windows tool's separator
    # a second run (--resume) extracts afresh
    assert extract(tmp_path / "s.zip", tmp_path / "out") == target

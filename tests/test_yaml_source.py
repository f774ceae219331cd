"""Hostile YAML, wherever the grader reads it (answers, specs, course.yaml, a Gradescope export's
metadata): too deep, too large, anchors and aliases, a key twice, a pipe. Each is one line naming
the file, the line where there is one, and the limit; never a RecursionError or a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from grader.batch.submitters import read_export
from grader.checks.answers import TileSweepAnswers, tile_sweep_question
from grader.checks.answers_load import load_answers
from grader.course import load_course
from grader.errors import GraderError
from grader.spec import load_spec
from grader.yaml_source import read_yaml
from tests.conftest import ROOT, run_grader

DEEP = 10_000


@pytest.mark.parametrize(
    "text",
    [
        "measurements: " + "[" * DEEP + "]" * DEEP + "\n",
        "measurements: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
        "".join("  " * depth + "a:\n" for depth in range(100)),
    ],
    ids=["lists", "flow-mappings", "block-mappings"],
)
def test_deeply_nested_answers_are_one_line_naming_the_file_and_the_limit(text: str) -> None:
    result = load_answers(text, "answers.yaml", TileSweepAnswers, tile_sweep_question)
    assert isinstance(result, str)
    assert result.startswith("answers.yaml:") and "nested over 64 levels deep" in result
    assert "\n" not in result and "Recursion" not in result


def test_nesting_up_to_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("a: " + "[" * 63 + "]" * 63 + "\n")  # 64 levels with the mapping
    depth, value = 0, read_yaml(path).data["a"]
    while isinstance(value, list):
        depth, value = depth + 1, value[0] if value else None
    assert depth == 63


def test_anchors_aliases_and_repeated_keys_are_refused_with_their_line(tmp_path: Path) -> None:
    cases = {
        "alias.yaml": ("a: &x 1\nb: *x\n", ":1: YAML anchors and aliases"),
        "anchor.yaml": ("a: 1\nb: &lonely 2\n", ":2: YAML anchors and aliases"),
        "twice.yaml": ("a: 1\nb: 2\na: 3\n", ":3:1: key 'a' given twice (first on line 1)"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(GraderError) as caught:
            read_yaml(tmp_path / name)
        assert str(caught.value).startswith(f"{tmp_path / name}{message}")


def test_oversized_yaml_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    big = tmp_path / "spec.yaml"
    big.write_text("title: " + "x" * (1024 * 1024) + "\n")
    with pytest.raises(GraderError, match=r"spec\.yaml: over the limit of 1,048,576 bytes$"):
        load_spec(big)


def test_yaml_that_is_a_pipe_or_a_link_to_a_device_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    with pytest.raises(GraderError, match=r"fifo\.yaml: not a regular file \(a pipe\)$"):
        read_yaml(tmp_path / "fifo.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    with pytest.raises(GraderError, match=r"zero\.yaml: not a regular file \(a device\)$"):
        read_yaml(tmp_path / "zero.yaml")


def test_a_course_file_too_deep_names_its_file_and_line(course_copy: Path) -> None:
    spec = course_copy / "exercises/ex4-register-tiling/spec.yaml"
    spec.write_text(spec.read_text() + "extra: " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(GraderError) as caught:
        load_course(course_copy)
    lines = spec.read_text().count("\n")
    assert str(caught.value).startswith(f"{spec}:{lines}: nested over 64 levels deep")


def _export(root: Path, metadata: str) -> Path:
    (root / "submission_1").mkdir(parents=True)
    shutil.copy(ROOT / "solutions/ex4-register-tiling/kernel.cu", root / "submission_1")
    (root / "submission_metadata.yml").write_text(metadata)
    return root


ALIASED = (
    "submission_1:\n"
    "  :submitters:\n"
    "  - &ada\n"
    "    :name: Ada\n"
    "    :sid: '1'\n"
    "submission_2:\n"
    "  :submitters:\n"
    "  - *ada\n"
)


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)
)


@pytest.mark.slow
def test_gradescopes_anchors_are_read_but_an_alias_bomb_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    # Ruby's YAML (Gradescope's) writes anchors for repeated values: they are read
    export = read_export(_export(tmp_path / "export", ALIASED))
    assert export is not None and set(export) == {"submission_1", "submission_2"}
    # a few lines that stand for 10^9 values are not
    root = _export(tmp_path / "bomb", BOMB)
    with pytest.raises(GraderError) as caught:
        read_export(root)
    assert str(caught.value) == (
        f"{root / 'submission_metadata.yml'}: its aliases (*name) stand for over 100,000 "
        "values: write each value out"
    )
    done = run_grader(["batch", str(root), "--out", str(tmp_path / "out"), "--backend", "cpu"])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith("stand for over 100,000 values: write each value out")
    )
    looped = _export(tmp_path / "looped", "a: &a [1, *a]\n")
    with pytest.raises(GraderError, match=r":1: an alias refers to the value it is inside$"):
        read_export(looped)


def test_oversized_or_linked_gradescope_metadata_is_refused(tmp_path: Path) -> None:
    root = _export(tmp_path / "big", "x: '" + "y" * (16 * 1024 * 1024) + "'\n")
    with pytest.raises(GraderError, match=r"over the limit of 16,777,216 bytes$"):
        read_export(root)
    linked = _export(tmp_path / "linked", "")
    (linked / "submission_metadata.yml").unlink()
    (linked / "submission_metadata.yml").symlink_to(tmp_path / "big/submission_metadata.yml")
    with pytest.raises(GraderError, match=r"a symbolic link; hand in the file itself"):
        read_export(linked)


@pytest.mark.slow
def test_deep_answers_in_grader_check_are_one_line_in_the_report(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.cu"
    shutil.copy(ROOT / "solutions/ex2-tile-sweep/kernel.cu", kernel)
    (tmp_path / "answers.yaml").write_text("gpu: " + "[" * DEEP + "]" * DEEP + "\n")
    args = ["check", "ex2", "--backend", "cpu", "--seed", "1", "--file", str(kernel)]
    done = run_grader(args)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stdout + done.stderr
    assert "answers.yaml:1: nested over 64 levels deep" in done.stdout


def test_numbers_too_long_or_values_python_cannot_hold_are_one_line(tmp_path: Path) -> None:
    # YAML 1.1 reads 1:2:3... as base 60, in time quadratic in its length; a date may be no date
    cases = {
        "base60.yaml": ("x: 1" + ":59" * 20_000 + "\n", ":1: a number of 60,001 characters"),
        "digits.yaml": ("x: " + "9" * 5000 + "\n", ":1: a number of 5,000 characters"),
        "date.yaml": ("x: 2024-13-45\n", ": a value the grader cannot read: month must be in"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(GraderError) as caught:  # the length check refuses it unparsed
            read_yaml(path)
        assert str(caught.value).startswith(f"{path}{expected}"), str(caught.value)
        assert "\n" not in str(caught.value)

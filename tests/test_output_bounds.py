"""Text a submission chooses (compile errors quoting its lines, file names, answers) is shown
bounded, literally and without control characters, in every output format: the terminal (never
read as rich markup), --json, and the Markdown feedback of a batch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal
from grader.results import CheckResult, DeviceInfo, Report
from grader.text_bounds import MAX_CHARS, MAX_HINTS
from tests.conftest import ROOT, run_grader

REPORT_BOUND = 20_000
"""The most characters a whole report of ex1 (11 checks) may take in any format."""
HEADER = (
    "__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)"
)
MARKUP = "[/x] [bold red]styled[/bold red] [link=http://evil]here[/link]"


def _report(message: str, hints: list[str] | None = None, source: str = "kernel.cu") -> Report:
    check = CheckResult("compile", "compile", "failed", 0.0, 10.0, message)
    device = DeviceInfo("cpu", "CPU emulation")
    return Report("ex1", "Non-square matrices", source, 7, device, [check], hints or [])


def _terminal(report: Report, colour: bool = False) -> str:
    console = Console(record=True, width=200, force_terminal=colour, color_system="truecolor")
    with console.capture() as captured:
        render_terminal(report, console)
    return captured.get()


def test_a_check_result_and_a_report_bound_what_they_are_given() -> None:
    hints = ["z" * 100_000] * 500
    report = _report("m" * 1_000_000, hints, source="s" * 10_000 + "\x1b[2J.cu")
    assert len(report.checks[0].message) <= MAX_CHARS
    assert len(report.hints) == MAX_HINTS and all(len(h) <= MAX_CHARS for h in report.hints)
    assert report.hints[-1] == f"… ({500 - MAX_HINTS + 1} more hints)"
    assert len(report.source) <= 200 and "\x1b" not in report.source
    again = Report.from_json(json.loads(json.dumps(report.to_json())))
    assert again.to_json() == report.to_json()


# --- the terminal -------------------------------------------------------------------------


def test_rich_markup_in_a_message_name_source_and_hint_prints_literally() -> None:
    report = _report(f"kernel.cu:3: error: {MARKUP}", [f"look at {MARKUP}"], source="[/x].cu")
    shown = _terminal(report)
    assert f"kernel.cu:3: error: {MARKUP}" in shown
    assert f"hint: look at {MARKUP}" in shown and "[/x].cu on CPU emulation" in shown
    coloured = _terminal(report, colour=True)
    assert "[bold red]styled[/bold red]" in coloured  # the tags are text, not a style
    assert "\x1b]8;" not in coloured  # and no hyperlink was made of [link=...]


# --- Markdown -----------------------------------------------------------------------------


def test_markdown_feedback_cannot_be_broken_out_of_or_injected_into() -> None:
    message = "before\n```\n# Injected heading\n![t](http://evil/t.png)\n```\nafter"
    hints = ["see <img src=http://evil/x> and [a link](http://evil) | a cell"]
    markdown = render_markdown(_report(message, hints, source="a`b.cu"))
    fence = "````"  # longer than the message's own ``` run: the message cannot close it
    assert f"{fence}\n{message}\n{fence}" in markdown
    assert "- see \\<img src=http://evil/x\\> and \\[a link\\](http://evil) \\| a cell" in markdown
    assert "``a`b.cu``" in markdown


# --- the CLI, as a student runs it --------------------------------------------------------


@pytest.mark.slow
def test_a_compile_error_quoting_a_250_kb_line_gives_a_bounded_report(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.cu"
    kernel.write_text(f"{HEADER}\n{{\n    undeclared_{'a' * 250_000} = 1;\n}}\n")
    terminal = run_grader(["check", "ex1", "--backend", "cpu", "--file", str(kernel)])
    assert terminal.returncode == 1, terminal.stderr
    assert "kernel.cu:3: error" in terminal.stdout and "more characters)" in terminal.stdout
    assert len(terminal.stdout) < REPORT_BOUND
    as_json = run_grader(["check", "ex1", "--json", "--backend", "cpu", "--file", str(kernel)])
    assert as_json.returncode == 1 and len(as_json.stdout) < REPORT_BOUND
    data = json.loads(as_json.stdout)
    assert len(data["checks"][0]["message"]) <= MAX_CHARS
    # the batch's Markdown feedback is rendered from this very JSON (read back from its store)
    markdown = render_markdown(Report.from_json(data))
    assert len(markdown) < REPORT_BOUND and "more characters)" in markdown


def test_markup_quoted_by_a_compile_error_prints_literally_without_a_crash(
    tmp_path: Path,
) -> None:
    kernel = tmp_path / "kernel.cu"
    kernel.write_text(f"{HEADER}\n{{\n#error {MARKUP}\n}}\n")
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "200"}
    done = run_grader_env(["check", "ex1", "--backend", "cpu", "--file", str(kernel)], env)
    assert done.returncode == 1, done.stderr  # a failed check, not a crash
    assert "Traceback" not in done.stderr and "MarkupError" not in done.stderr
    assert f"#error directive: {MARKUP}" in done.stdout  # the tags as text: no style made of them


@pytest.mark.slow
def test_an_escape_sequence_in_a_file_name_is_shown_and_never_reaches_the_terminal(
    tmp_path: Path,
) -> None:
    kernel = tmp_path / "k\x1b[2J\x1b[31mred.cu"
    kernel.write_text(f"{HEADER}\n{{\n#error stop\n}}\n")
    for extra in ([], ["--json"]):
        done = run_grader(["check", "ex1", "--backend", "cpu", "--file", str(kernel), *extra])
        assert done.returncode == 1, done.stderr
        assert "\x1b" not in done.stdout
    assert "k\\x1b[2J\\x1b[31mred.cu:3: error" in json.loads(done.stdout)["checks"][0]["message"]


@pytest.mark.slow
def test_an_answers_file_s_escape_sequences_and_markup_print_literally(
    small_course: Path, tmp_path: Path
) -> None:
    solution = ROOT / "solutions/ex2-tile-sweep"
    (tmp_path / "kernel.cu").write_bytes((solution / "kernel.cu").read_bytes())
    answers = (solution / "answers.yaml").read_text().split("explanation:")[0]
    (tmp_path / "answers.yaml").write_text(
        answers + f'explanation: "\\e[2J\\e[31m {MARKUP} {"w" * 60_000}"\n'
    )
    args = ["--course", str(small_course), "check", "ex2", "--backend", "cpu"]
    args += ["--file", str(tmp_path / "kernel.cu")]
    done = run_grader(args)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and len(done.stdout) < REPORT_BOUND
    as_json = run_grader([*args, "--json"])
    assert "\x1b" not in as_json.stdout
    checks = json.loads(as_json.stdout)["checks"]
    explanation = next(c for c in checks if c["name"] == "answers explanation")
    assert explanation["message"].startswith(
        f"pending: your instructor grades it by hand (10 points): \\x1b[2J\\x1b[31m {MARKUP} www"
    )
    assert explanation["answer"].startswith(f"\\x1b[2J\\x1b[31m {MARKUP} www")  # for the review
    assert len(explanation["message"]) <= MAX_CHARS and len(explanation["answer"]) <= MAX_CHARS


def run_grader_env(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """run_grader with these environment variables (FORCE_COLOR: rich writes styles)."""
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )

"""Differential test of the #include guard against the real compilers.

Whatever the source, if NVRTC or g++ (the CPU backend's compiler) would read a file named in it,
the grader must refuse the source before they see it. Sources are an include surrounded by the
pieces that have hidden directives from simpler scans (digit separators, quotes, comments across
lines, splices, odd line endings, digraphs, raw strings); each is given to the compilers exactly
as the grader gives it (`KernelSource.text`), naming a file that prints a marker when read.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from grader.source import KernelSource, find_refusals
from tests.conftest import nvrtc_log

# integration: every source goes to g++ and NVRTC
pytestmark = pytest.mark.slow

MARKER = "FILE_WAS_READ"
NOISE = [
    "\n", "\\\n", "\\ \n", "\r", "\r\n", "/*", "*/", "//", '"', "'", "\\", "1'0", "x", 'R"(',
    ')"', "??/",
    # found by red-team rounds: a non-ASCII or `$` character beside a number, a quote or a
    # raw string's prefix; a directive after a comment that spans lines
    "\u00b2", "\u00e9", "$", "\u00a0", "'a/*'", "*/*/\n*/",
    # the third round: a quote right after a number, runs of quotes
    "1'#'", "1'", "''", "1e'", "'a'",
    # the fifth: a universal character name after a number
    "\\u0041",
]  # fmt: skip
DIRECTIVES = st.tuples(
    st.lists(st.sampled_from(NOISE), max_size=5),
    st.sampled_from(["#", "%:", "??="]),
    st.lists(st.sampled_from([" ", "\t", "/**/", "/*\n*/", "\\\n", "\\ \n"]), max_size=2),
    st.sampled_from(["include", "include_next", "import", "embed"]),
    st.lists(st.sampled_from(NOISE), max_size=3),
)


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("host") / "secret.h"
    path.write_text(f"#error {MARKER}\n")
    return path


def _nvrtc_reads(text: str) -> bool:
    return MARKER in nvrtc_log(text)


def _gcc_reads(text: str, work: Path) -> bool:
    source = work / "kernel.cu"
    source.write_text(text, newline="")
    done = subprocess.run(
        ["g++", "-std=gnu++17", "-E", "-x", "c++", str(source)],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
        timeout=30,
    )
    return MARKER in done.stdout + done.stderr


def _source(parts: tuple[list[str], str, list[str], str, list[str]], target: Path) -> KernelSource:
    before, hash_sign, gap, name, after = parts
    text = "".join(before) + hash_sign + "".join(gap) + name + f' "{target}"' + "".join(after)
    return KernelSource(text, "kernel.cu")


@pytest.mark.parametrize(
    "text",
    [
        "int x = 1'0; const char *s = \"'/*\";\n#include TARGET\n// */\n",
        "# /* a comment\n spanning lines */ include TARGET\n",
        "int y; \\ \n#include TARGET\n",
        "int z; // c\r#include TARGET\n",
        "??=include TARGET\n",
        "%:include TARGET\n",
        # found by the property below: NVRTC takes a # after a comment that began on an earlier
        # line as first on its line; g++ (and the standard) do not
        "*/*/\n*/#include TARGET\n",
        # found by a red-team: both compilers end a number at a non-ASCII character
        "\u00b2'a/*'\n#include TARGET\n*/\n",
        # found by the third: NVRTC ends a number right after its quote, g++ swallows a run
        "int x = 1'#'/*';\n#include TARGET\n// */\n",
        "1e" + "'" * 3 + "a'/*\n#include TARGET\n*/\n",
        # the fifth: g++ takes the UCN into the number, then a quote to the line's end
        "#define Z 1\\u0041'x'/*\n#include TARGET\n*/\n",
    ],
)
def test_known_tricks_never_reach_a_compiler(text: str, target: Path, tmp_path: Path) -> None:
    source = KernelSource(text.replace("TARGET", f'"{target}"'), "kernel.cu")
    if not find_refusals(source):
        assert not _nvrtc_reads(source.text)
        if shutil.which("g++"):
            assert not _gcc_reads(source.text, tmp_path)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ (the CPU backend's compiler)")
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=DIRECTIVES)
def test_whatever_a_compiler_would_read_is_refused(
    parts: tuple[list[str], str, list[str], str, list[str]], target: Path, tmp_path: Path
) -> None:
    source = _source(parts, target)
    refused = bool(find_refusals(source))
    # about a third are refused; the rest are given to both compilers (--hypothesis-show-statistics)
    event("refused by the guard" if refused else "given to the compilers")
    if not refused:  # a refused source never reaches a compiler: the property holds
        assert not _gcc_reads(source.text, tmp_path), repr(source.text)
        assert not _nvrtc_reads(source.text), repr(source.text)

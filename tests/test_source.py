from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.errors import GraderError
from grader.source import (
    MAX_SOURCE_BYTES,
    KernelSource,
    find_global_functions,
    find_refusals,
    read_source,
)


def _src(text: str) -> KernelSource:
    return KernelSource(text, "kernel.cu")


@pytest.mark.parametrize(
    "text",
    [
        '#include "/etc/passwd"\n',
        "  #  include <stdio.h>\n",
        "#\\\ninclude <stdio.h>\n",
        "#define F </etc/hostname>\n#include F\n",
        "#include_next <x.h>\n",
        "#if __has_include(</etc/shadow>)\n#endif\n",
        '%:include "/etc/passwd"\n',  # the digraph: g++ honours it on the CPU backend
        '#ifndef __CUDACC_RTC__\n%:  include "/etc/passwd"\n#endif\n',
        '# /* hidden */ include "/etc/passwd"\n',
        '#embed "/etc/passwd"\n',
        # found by probing: each hid an include from an earlier, simpler scan, and NVRTC read it
        'int x = 1\'0; const char *s = "\'/*";\n#include "/etc/passwd"\n// */\n',
        '# /* a comment\n spanning lines */ include "/etc/passwd"\n',
        'int z; // c\r#include "/etc/passwd"\n',  # g++ ends a line at a lone CR; NVRTC does not
        '#\\u0069nclude "/etc/passwd"\n',
        "#if __has_embed(</etc/shadow>)\n#endif\n",
        # NVRTC takes this # as first on its line (a comment from the line above ends before
        # it); g++ and the standard do not
        '*/*/\n*/#include "/etc/passwd"\n',
        # the fourteenth session's red-team: a number with a non-ASCII character hid the
        # include (the compilers end the number before the quote, the scan did not); pasting
        # spelled __has_include in #if; #line, line markers and GCC dependency open files
        "\u00b2'a/*'\n#include \"/etc/passwd\"\n*/\n",
        "1'\u00e9/*'\n#include \"/etc/passwd\"\n*/\n",
        '#define P(x) __has_##x\n#if P(include)("/etc/passwd")\n#endif\n',
        '#define H(a, b) a##b\n#define Q H\n#if Q(_, _has_include)("/etc/passwd")\n#endif\n',
        '#line 1 "/etc/passwd"\n',
        '# 7 "/etc/passwd"\n',
        '#pragma GCC dependency "/etc/passwd"\n',
        '_Pragma("GCC dependency \\"/etc/passwd\\"")\n',
        # its second round: `$` or a non-ASCII letter before a raw string (the scan took `$R` as
        # one name, NVRTC read R"( ... )" and then the include); _Pragma's operand built by a
        # macro; a pasting #define or #if after a comment that spans lines (NVRTC's directive)
        '$R"(" /*\n)"\n#include "/etc/passwd"\n*/\n',
        '\u00e9R"(" /*\n)"\n#include "/etc/passwd"\n*/\n',
        '#define P "GCC dependency \\"/etc/passwd\\""\n_Pragma(P)\n',
        'int y; /*\n*/#define P(x) __has_##x\n#if P(include)("/etc/passwd")\n#endif\n',
        '#define P(x) __has_##x\nint y; /*\n*/#if P(include)("/etc/passwd")\n#endif\n',
        # the fifteenth session's red-team: a quote right after a number (NVRTC ends the number
        # there and read the include, quoting the file's macros in its errors; g++ swallows a
        # run of quotes); pasting outside #if, and NVRTC's own pasting macros, spell
        # __has_include anywhere; _Pragma not followed by ( and a string on its line
        "int x = 1'#'/*';\n#include \"/etc/passwd\"\n// */\n",
        "#pragma unroll 1'#'/*'\n#include \"/etc/passwd\"\n// */\n",
        "#if 0\n1" + "'" * 3 + 'a\'/*\n#endif\n#include "/etc/passwd"\n#if 0\n*/\n#endif\n',
        "1e" + "'" * 3 + 'a\'/*\n#include "/etc/passwd"\n*/\n',
        "int z = .5" + "'" * 3 + '_\'/*\n#include "/etc/passwd"\n*/\n',
        '#define P(x) __has_##x\nconstexpr int E = P(include)("/etc/passwd");\n',
        '#if _NV_PASTE5(_,_has,_include,,)("/etc/passwd")\n#endif\n',
        "constexpr int E = __CUDART_API_PTDS(x);\n",
        '#define P _Pragma\nP("GCC dependency \\"/etc/passwd\\"")\n',
        '_Pragma\n("GCC dependency \\"/etc/passwd\\"")\n',
        '#define E\n_Pragma E ("GCC dependency \\"/etc/passwd\\"")\n',
        '#define ID(x) x\nID(_Pragma)("GCC dependency \\"/etc/passwd\\"")\n',
        # its fourth: a UCN spells GCC for g++; UCNs past the last character (no crash)
        '_Pragma("G\\u0043C dependency \\"/etc/passwd\\"")\n',
        "int b\\UFFFFFFFF;\n",
        "int c\\U00110000;\n",
        # its fifth: g++ takes a UCN into a number (1\u0041'x' hid a comment from the scan, and
        # g++ read the include); g++ undoes \\ in _Pragma's string, then reads \u0043 as C
        "#define Z 1\\u0041'x'/*\n#include \"/etc/passwd\"\n*/\n",
        '_Pragma("G\\\\u0043C dependency \\"/etc/passwd\\"")\n',
    ],
)
def test_includes_are_refused_with_their_line_and_without_the_name(text: str) -> None:
    refusals = find_refusals(_src("int x;\n" + text))
    assert refusals, text
    assert refusals[0].line in (2, 3, 4)
    assert "/etc" not in refusals[0].message and "stdio" not in refusals[0].message


def test_include_inside_comments_or_strings_is_not_a_directive() -> None:
    text = (
        '// #include <stdio.h>\n/* #include "x" */\nconst char *s = "#include <y>";\n'
        "int n = 1'024; // #include <z>\n#define STR(x) #x\nconst char *t = STR(include);\n"
    )
    assert find_refusals(_src(text)) == []


def test_a_loose_splice_is_made_strict_for_every_compiler() -> None:
    # NVRTC does not splice a backslash followed by blanks and a newline, g++ does: the source
    # the compilers get is canonical, so for both this is one line and no directive (and the
    # guard refuses `#include` wherever it stands, directive or not).
    source = _src('int y; \\ \n#include "/etc/passwd"\n')
    assert source.text == 'int y; \\\n#include "/etc/passwd"\n'
    assert [r.line for r in find_refusals(source)] == [2]


def test_raw_string_literals_are_refused() -> None:
    refusals = find_refusals(_src('int x;\nconst char *s = R"(\n#include "/etc/passwd"\n)";\n'))
    assert [r.line for r in refusals] == [2]
    assert "raw string" in refusals[0].message


def test_global_functions_are_listed_with_lines() -> None:
    text = (
        "// __global__ void commented(int)\n"
        "__global__ void first(float *a) {}\n"
        'extern "C" __global__ void __launch_bounds__(256) second(float *a) {}\n'
        "template <int T>\n__global__\nvoid third(float *a) {}\n"
    )
    found = [(f.name, f.line) for f in find_global_functions(_src(text))]
    assert found == [("first", 2), ("second", 3), ("third", 6)]


@pytest.mark.parametrize("byte", ["\0", "\x01", "\x1b", "\x7f"])
def test_control_characters_are_refused_with_their_line(byte: str) -> None:
    # NVRTC stops reading at a NUL while g++ reads on: the two would compile different programs.
    text = f"__global__ void k(float *c)\n{{\n    // a{byte}b\n    c[0] = 1.0f;\n}}\n"
    refusals = find_refusals(_src(text))
    assert [(r.line, "control character" in r.message) for r in refusals] == [(3, True)]


def test_blanks_are_not_control_characters() -> None:
    assert find_refusals(_src("__global__ void k(float *c)\t{\f c[0] = 1.0f;\v }\n")) == []


def test_read_source_rejects_non_utf8(tmp_path: Path) -> None:
    latin = tmp_path / "l.cu"
    latin.write_bytes(b"int x;\n// caf\xe9\n")
    with pytest.raises(GraderError, match=r"l.cu:2: not UTF-8"):
        read_source(latin)
    with pytest.raises(GraderError, match="file not found"):
        read_source(tmp_path / "missing.cu")


def test_read_source_refuses_what_is_not_a_regular_file_without_reading_it(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "pipe.cu"
    os.mkfifo(fifo)  # reading it would block the grader forever
    with pytest.raises(GraderError, match=r"pipe\.cu: not a regular file"):
        read_source(fifo)
    with pytest.raises(GraderError, match="/dev/zero: not a regular file"):
        read_source(Path("/dev/zero"))  # reading it would fill the grader's memory
    with pytest.raises(GraderError, match="is a directory"):
        read_source(tmp_path)
    huge = tmp_path / "huge.cu"
    huge.write_bytes(b"x" * (MAX_SOURCE_BYTES + 1))
    with pytest.raises(GraderError, match="over the limit of 262,144 bytes"):
        read_source(huge)


@pytest.mark.parametrize(
    "text",
    [
        "int x = 1'000'000; unsigned y = 0xFF'FF; float z = 1.5e+3f; char c = 'a';\n",
        '#define UNROLL _Pragma("unroll")\n#pragma GCC unroll 4\n_Pragma("unroll 4")\n',
        "#if defined(__CUDA_ARCH__) || __CUDACC_RTC__\n#endif\nint n = __LINE__;\n",
        "#define CHECK(...) if (!(__VA_ARGS__)) return\n",
        '// 2\u00d72 tiles \u2014 \u00e9t\u00e9\nconst char *s = "\u00b2";\n',
    ],
    ids=[
        "digit-separators",
        "unroll-pragmas",
        "cuda-macros",
        "variadic-macro",
        "non-ascii-in-comments-and-strings",
    ],
)
def test_what_a_kernel_may_use_is_not_refused(text: str) -> None:
    assert find_refusals(_src(text)) == []

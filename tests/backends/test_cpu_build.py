"""The CPU backend builds exactly the program NVRTC compiles, or refuses the file with the
construct and its line; and a build is made once per distinct input, whatever directory it is
graded from."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import pytest

from grader.backends import cpu_build
from grader.backends.base import UnsupportedKernelError
from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_build import build, build_error
from grader.backends.cpu_unit import translate
from grader.course import load_course
from grader.grading import grade
from grader.source import KernelSource
from tests.conftest import ROOT, run_grader

try:
    TOOLCHAIN = check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

SIGNATURE = (
    "__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)"
)
BODY = """{
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row < M && col < N) {
        float s = 0.0f;
        for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
        C[row * N + col] = s;
    }
}
"""
SYMBOL = "_Z12matmul_tiledPKfS0_Pfiii"


def _build(text: str, name: str = "kernel.cu") -> Path:
    """The fast program built from `text` (UnsupportedKernelError when it is refused)."""
    built = build(KernelSource(text, name), {"TILE_SIZE": 16}, SYMBOL, TOOLCHAIN, checked_too=False)
    return built.fast.path


def _runnable(program: Path) -> bool:
    return program.is_file() and os.access(program, os.X_OK)


def test_a_plain_kernel_builds() -> None:
    assert _runnable(_build(f"{SIGNATURE}\n{BODY}"))


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        # g++ honours C++23's #elifdef; NVRTC (C++17) does not: the work is done on one only
        (
            f"#if 0\n#elifdef TILE_SIZE\n#define WORK 1\n#endif\n{SIGNATURE}\n{{\n#ifdef WORK\n"
            f"{BODY}#endif\n}}\n",
            9,
            "#elifdef",
        ),
        # __global__ is a macro in NVRTC and not in g++'s view of the file
        (f"{SIGNATURE}\n{{\n#ifndef __global__\n{BODY}#endif\n}}\n", 5, "CUDA keyword"),
    ],
    ids=["elifdef", "cuda-keyword-in-ifdef"],
)
def test_a_file_the_two_preprocessors_read_differently_is_refused_at_its_line(
    text: str, line: int, why: str
) -> None:
    with pytest.raises(UnsupportedKernelError) as refused:
        _build(text)
    message = str(refused.value)
    assert message.startswith(f"kernel.cu:{line}: ")
    assert why in message and "differently from NVRTC" in message


def test_a_pragma_made_by_a_macro_for_gcc_alone_is_refused() -> None:
    # NVRTC ignores the pragma; g++'s build would act on it when it reads the text again
    text = f'#define P _Pragma("GCC optimize(\\"O0\\")")\nP\n{SIGNATURE}\n{BODY}'
    with pytest.raises(UnsupportedKernelError, match=r"kernel.cu:2: #pragma GCC optimize"):
        _build(text)


def test_a_name_that_is_a_macro_only_in_the_cpu_build_is_refused() -> None:
    # `linux` is predefined by g++ (gnu++17), an ordinary name to NVRTC
    text = f"{SIGNATURE}\n{{\n    const int linux = 1;\n    if (!linux) return;\n{BODY}}}\n"
    with pytest.raises(UnsupportedKernelError, match=r"kernel.cu:3: 'linux' means something"):
        _build(text)


def test_loop_unrolling_pragmas_are_allowed() -> None:
    body = BODY.replace("for (int k", "#pragma unroll 4\n        for (int k")
    assert _runnable(_build(f"{SIGNATURE}\n{body}"))


@pytest.fixture(scope="module")
def small_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "course.yaml", root / "course.yaml")
    for name in ("exercises", "solutions", "reference"):
        shutil.copytree(ROOT / name, root / name)
    spec = root / "exercises/ex1-non-square/spec.yaml"
    text = spec.read_text()
    spec.write_text(text[: text.index("  cases:")] + "  cases:\n    - {shape: 17x33x65}\n")
    return root


@pytest.mark.slow
def test_the_cpu_runs_the_function_nvrtc_compiled_not_one_a_macro_renames(
    small_course: Path,
) -> None:
    # NVRTC expands macros in the kernel's name too: the GPU launches the empty `fake`, while
    # a harness calling `matmul_tiled` by name would run the one that does the work
    text = (
        f"{SIGNATURE}\n{BODY}"
        "__global__ void fake(const float *A, const float *B, float *C, int M, int K, int N) {}\n"
        "#define matmul_tiled fake\n"
    )
    report = grade(
        load_course(small_course).find("ex1"), KernelSource(text, "kernel.cu"), backend="cpu"
    )
    assert not report.passed
    case = next(c for c in report.checks if c.kind == "correctness")
    assert case.status == "failed" and "C was never written" in case.message


@pytest.mark.slow
def test_a_second_check_of_the_same_file_reuses_the_build_and_says_so(
    small_course: Path, tmp_path: Path
) -> None:
    # a body no other test builds, so that the first check really builds it
    kernel = tmp_path / "kernel.cu"
    kernel.write_text(f"{SIGNATURE}\n{BODY}// {uuid.uuid4()}\n")  # never built before
    args = ["--course", str(small_course), "check", "ex1", "--backend", "cpu", "--file"]
    first = run_grader([*args, str(kernel), "--json"])
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(kernel, moved / "kernel.cu")  # same text, another directory: still a hit
    second = run_grader([*args, str(moved / "kernel.cu"), "--json"])
    stages = [json.loads(run.stdout)["stages"] for run in (first, second)]
    assert [[s["cached"] for s in run] for run in stages] == [[False], [True]], stages
    assert json.loads(second.stdout)["passed"]
    terminal = run_grader([*args, str(kernel)])
    assert "reused from the cache" in terminal.stdout and "not counted in any" in terminal.stdout


@pytest.mark.parametrize(
    ("attribute", "name"),
    [
        ("__attribute__((constructor))", "constructor"),
        ("__attribute__ ( ( destructor ) )", "destructor"),
        ("[[gnu::constructor]]", "constructor"),
        ('__attribute__((section(".init_array")))', "section"),
        # the third red-team round: digraphs for [[ ]]; g++ assembled the section's .incbin
        ("<:<:gnu::constructor:>:>", "constructor"),
        ('[[gnu::aligned("\\x10"["\\0"[0]]), gnu::constructor]]', "constructor"),  # a ]] inside
        ('<:<:gnu::section(".data\\n.incbin \\"/etc/hostname\\"\\n#"), gnu::used:>:>', "section"),
    ],
)
def test_an_attribute_g_plus_plus_would_act_on_is_refused_at_its_line(
    attribute: str, name: str
) -> None:
    # NVRTC drops a __device__ function nothing calls, with its attributes; g++ would run one
    # marked constructor before the harness, and make this kernel right on the CPU alone
    text = (
        "__device__ int cpu_only = 0;\n"
        f"__device__ {attribute} void on_load() {{ cpu_only = 1; }}\n"
        f"{SIGNATURE}\n{BODY}"
    )
    with pytest.raises(UnsupportedKernelError) as refused:
        _build(text)
    # (the backend's scan of the file itself names it first; the build reads it again once
    # macros are expanded, and names the same line)
    assert str(refused.value).startswith(
        f"kernel.cu:2: the attribute '{name}' is not supported by the CPU backend"
    )


def test_harmless_attributes_are_built() -> None:
    text = (
        "__device__ __attribute__((noinline, unused)) float twice(float x) { return 2 * x; }\n"
        f"[[maybe_unused]] {SIGNATURE}\n{BODY}"
    )
    assert _runnable(_build(text))


def test_a_build_error_outside_the_students_file_is_not_quoted() -> None:
    stderr = (
        "In file included from unit.cpp:3:\n"
        "/etc/hostname:1:1: error: 'secret-host-name' does not name a type\n"
        "kernel.cu:7:5: error: 'foo' was not declared in this scope\n"
    )
    assert build_error(stderr, "kernel.cu") == (
        "kernel.cu:7:5: error: 'foo' was not declared in this scope"
    )
    only_outside = "/etc/hostname:1:1: error: 'secret-host-name' does not name a type\n"
    message = build_error(only_outside, "kernel.cu")
    assert "secret" not in message and message.startswith("g++ failed outside your file")


def test_a_section_conflict_of_shared_variables_says_what_to_do() -> None:
    # found by the eighth walk: __shared__ in an inline helper and in the kernel
    stderr = "kernel.cu:23:22: error: 'fsum' causes a section type conflict with 'sa'\n"
    message = build_error(stderr, "kernel.cu")
    assert message.startswith("kernel.cu:23:22: __shared__ variables both in an inline function")
    assert "declare __shared__ ones in the kernel" in message
    assert "__constant__ variables both const and not" in message  # the other cause, g++ alike


@pytest.mark.parametrize("prefix", ["", "inline ", "__forceinline__ "])
def test_an_inline_kernel_is_built_and_graded(prefix: str, small_course: Path) -> None:
    # nothing in C++ calls the kernel (the harness names NVRTC's symbol), so g++ must be told to
    # emit it even where it is inline
    exercise = load_course(small_course).find("ex1")
    source = KernelSource(f"{prefix}{SIGNATURE}\n{BODY}", "kernel.cu")
    report = grade(exercise, source, seed=1, backend="cpu", selection="correctness")
    correctness = [c for c in report.checks if c.name.startswith("correctness")]
    assert correctness and all(c.status == "passed" for c in correctness), report.checks[1]


def test_a_change_to_the_unit_around_the_kernel_rebuilds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what the kernel's unit declares around the student's code is part of the program: a
    # cached one built around another frame is not reused
    text = f"{SIGNATURE}\n{BODY}// {uuid.uuid4()}\n"
    first = build(KernelSource(text, "kernel.cu"), {"TILE_SIZE": 16}, SYMBOL, TOOLCHAIN, False)
    again = build(KernelSource(text, "kernel.cu"), {"TILE_SIZE": 16}, SYMBOL, TOOLCHAIN, False)
    assert (first.cached, again.cached) == (False, True)
    framed = cpu_build.unit_text
    monkeypatch.setattr(cpu_build, "unit_text", lambda t: framed(t) + "// another frame\n")
    other = build(KernelSource(text, "kernel.cu"), {"TILE_SIZE": 16}, SYMBOL, TOOLCHAIN, False)
    assert not other.cached and other.fast.path != first.fast.path


def test_extern_shared_is_rewritten_in_code_and_never_inside_a_string() -> None:
    # sizeof of this literal told g++'s build from NVRTC's (red team, session 23)
    text = (
        "extern __shared__ float tile[];\n"
        'int n = sizeof("extern __shared__ float x[];");\n'
        "/* extern __shared__ float y[]; */ extern __shared__ __align__(16) int t2[];\n"
    )
    assert translate(text).splitlines() == [
        "float *const tile = reinterpret_cast<float *>(::gg::dynamic_shared());",
        'int n = sizeof("extern __shared__ float x[];");',
        "/* extern __shared__ float y[]; */ int *const t2 = reinterpret_cast<int *>"
        "(::gg::dynamic_shared());",
    ]


def test_without_the_tools_that_read_a_build_the_cpu_backend_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiler = shutil.which("g++")
    assert compiler is not None
    (tmp_path / "g++").symlink_to(compiler)
    monkeypatch.setenv("PATH", str(tmp_path))  # g++, and no readelf, objcopy nor c++filt
    with pytest.raises(CpuUnavailableError) as missing:
        check_toolchain()
    assert str(missing.value) == "readelf, objcopy, c++filt missing: install binutils"


def test_the_toolchain_is_the_g_plus_plus_the_builds_run_whatever_cxx_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the builds call g++ (cpu_unit); a description of CXX's compiler went into the cache's key
    # and the report while g++ built
    expected = check_toolchain()
    assert expected.startswith("g++ ")
    monkeypatch.setenv("CXX", "/nonexistent/clang++")
    assert check_toolchain() == expected

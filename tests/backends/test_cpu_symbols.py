"""The student's part of a CPU program may not run outside its kernel (read off its object,
cpu_symbols, whatever the spelling that got it past the source scans), nor stand in for the
functions of the runtime or the libraries: every symbol of its object but the kernel's is made
internal before the link. Nor can it change what the harness calls, compiled in another unit.
Each refused kernel here would be wrong on a GPU and right on the CPU; each kernel built here runs
as on a GPU."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader.backends.base import UnsupportedKernelError
from grader.backends.cpu import CpuUnavailableError, check_toolchain
from grader.backends.cpu_build import build
from grader.backends.cpu_unsupported import unsupported_constructs
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape
from tests.backends.sessions import prepared_cpu_backend

try:
    TOOLCHAIN = check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

KERNEL = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row < M && col < N) C[row * N + col] = on_cpu ? 0.0f : 42.0f;
}
"""
SYMBOL = "_Z12matmul_tiledPKfS0_Pfiii"


def _build(prefix: str) -> str:
    text = prefix + KERNEL
    with pytest.raises(UnsupportedKernelError) as refused:
        build(KernelSource(text, "kernel.cu"), {}, SYMBOL, TOOLCHAIN)
    return str(refused.value)


@pytest.mark.slow
@pytest.mark.parametrize(
    "code",
    [
        # attributes, in any spelling, are refused by the scan of the source first
        # (tests/backends/test_cpu_build.py); code that runs before the kernel without one:
        "struct Hook { Hook() { on_cpu = 1; } };\nstatic Hook hook;\n",
        "int on_init() { on_cpu = 1; return 1; }\nint hook = on_init();\n",
    ],
    ids=["static-object", "dynamic-initializer"],
)
def test_code_that_would_run_before_the_kernel_is_refused_from_the_program(code: str) -> None:
    message = _build(f"__device__ int on_cpu = 0;\n{code}")
    assert "kernel.cu: code that runs before or after the kernel (.init_array" in message


def _written(prefix: str) -> set[float]:
    """The values the kernel (with `prefix` before it) writes into C in one 16 x 16 launch."""
    tiles = LaunchSpec(block=(16, 16), tile=(16, 16))
    ones = np.ones((16, 16), np.float32)
    launch = make_launch(ones, ones, Shape(16, 16, 16), tiles)
    with prepared_cpu_backend(
        KernelSource(prefix + KERNEL, "kernel.cu"), "matmul_tiled", {}
    ) as backend:
        c = backend.run_gemm(launch).c
    return {float(x) for x in c[launch.offset : launch.offset + 256]}


_WRITE_TEMPLATE = (
    "template <class F, class P, class S> {} __device__ long write(F f, P p, S s)"
    " {{ on_cpu = 1; return 0; }}\n"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "code",
    [
        *(_WRITE_TEMPLATE.format(inline) for inline in (
            "", "__forceinline__", "__attribute__((always_inline))",
            "__attribute__((always_inline)) inline", "__attribute__((__always_inline__)) inline",
            "[[gnu::always_inline]] inline",
        )),
        "template <class T> __device__ auto write(int fd, const char *at, T bytes)"
        " -> decltype(bytes + 0L) { on_cpu = 1; return 0; }\n",
        "namespace { __device__ long write(int fd, const char *at, unsigned long bytes)"
        " { on_cpu = 1; return 0; } }\n",
    ],
    ids=["plain", "forceinline", "always_inline-not-inline", "always_inline", "__always_inline__",
         "gnu::always_inline", "decltype-return", "anonymous-namespace"],
)  # fmt: skip
def test_a_template_named_like_the_harness_s_write_is_not_what_the_harness_calls(code: str) -> None:
    # g++ preferred each to the C library's write() for the harness's own call when the harness
    # came after the kernel's file (red team, sessions 23 and 24: an empty kernel passed ex1 with
    # C computed there); NVRTC never instantiates them. The harness now comes first, and binds
    # its calls before any of the file's declarations exist: the kernel runs as on a GPU.
    assert _written("__device__ int on_cpu = 0;\n" + code) == {42.0}


_STRTOL = (
    'extern "C" __device__ long strtol(const char *s, char **end, int base) noexcept'
    " { on_cpu = 1; if (end) *end = const_cast<char *>(s); return 0; }\n"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "name"),
    [
        # glibc's inline atoi, which the harness calls, calls strtol at -O2 only
        (_STRTOL, "strtol"),
        (_STRTOL.replace('extern "C"', 'extern "C" inline'), "strtol"),
        # the C start-up calls it before main where a program defines it
        ('extern "C" __device__ void __gmon_start__() { on_cpu = 1; }\n', "__gmon_start__"),
        # the runtime's `new Thread[...]` would call it
        ("__device__ void *operator new[](unsigned long n) { on_cpu = 1; return malloc(n); }\n",
         "operator new[](unsigned long)"),
    ],
    ids=["strtol", "inline-strtol", "gmon_start", "operator-new"],
)  # fmt: skip
def test_a_function_the_libraries_define_cannot_be_stood_in_for(code: str, name: str) -> None:
    # they were refused while the file shared the runtime's unit; its symbols are now internal
    # to its object, and the libraries and the runtime call their own
    assert _written("__device__ int on_cpu = 0;\n" + code) == {42.0}


def test_the_c_library_s_malloc_redefined_is_refused() -> None:
    # CUDA's device heap declares malloc (cuda_kernel.hpp does too, with C++ linkage): a file's
    # own `extern "C"` one does not build on the CPU, and is left to a GPU
    code = (
        'extern "C" __device__ void *malloc(unsigned long n) noexcept { on_cpu = 1; return 0; }\n'
    )
    assert "conflicting declaration" in _build("__device__ int on_cpu = 0;\n" + code)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["round_up", "launch", "fail", "write", "run_one", "atoi"])
def test_a_helper_named_like_a_function_of_the_runtime_s_is_built_and_runs(name: str) -> None:
    # they were refused while the harness came after the file (a function of the file's named
    # like one the runtime defines or calls could be taken for it): a right kernel with such a
    # helper got only its compile points on a machine without a GPU (red team, round 5)
    helper = f"__device__ int {name}(int a, int b) {{ return a + b; }}\n"
    assert _written("__device__ int on_cpu = 0;\n" + helper) == {42.0}


@pytest.mark.slow
def test_a_kernel_calling_the_runtimes_templates_is_built() -> None:
    # max(1, 2) adds `int max<int>(int, int)`, an instance of the runtime's own template
    body = """
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    float x = min(1.0f, A[0]) + max(1, 2) + max(2.0, 3.0) + (float)min(3u, 4u) + __ldg(A);
    x += min(threadIdx.x, K) + max(-1, 0u) + min(2.0f, 3.0);  // mixed types, as CUDA has them
    atomicAdd(C, x);
    atomicMax((int *)C, 3);
    atomicCAS((int *)C, 3, 4);
    atomicExch(C, 1.0f);
    __stcs(C, __ldcg(A) + __ldca(A) + __ldcs(A) + __ldlu(A) + __ldcv(A));
    __stcg(C, 1.0f);
    __stwt(C, 1.0f);
    __stwb(C, 1.0f);
}
"""
    build(KernelSource(body, "kernel.cu"), {}, SYMBOL, TOOLCHAIN)  # raises if refused


def test_the_runtime_is_compiled_once_then_read_back_from_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the runtime's code generation was a third of every kernel's build: now once per toolchain
    from grader.backends import cpu_unit

    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    first, again = tmp_path / "first", tmp_path / "again"
    first.mkdir()
    again.mkdir()
    cpu_unit.runtime_objects(TOOLCHAIN, first)
    kept = sorted((tmp_path / "cache").glob("cpu-*-runtime*.o"))
    assert [p.name.split("-", 2)[2] for p in kept] == ["runtime-checked.o", "runtime.o"]

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(cpu_unit.subprocess, "Popen", no_compile)
    cpu_unit.runtime_objects(TOOLCHAIN, again)
    for name in ("runtime.o", "runtime-checked.o"):
        assert (again / name).read_bytes() == (first / name).read_bytes()
        assert (again / name).read_bytes().startswith(b"\x7fELF")


@pytest.mark.parametrize("damage", [b"", b"not an object", b"\x7fELF"])
def test_a_damaged_runtime_object_in_the_cache_is_compiled_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: bytes
) -> None:
    from grader.backends import cpu_unit

    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    key = cpu_unit.runtime_key(TOOLCHAIN)
    for name in ("runtime.o", "runtime-checked.o"):
        (tmp_path / "cache" / f"cpu-{key}-{name}").write_bytes(damage)
    into = tmp_path / "into"
    into.mkdir()
    cpu_unit.runtime_objects(TOOLCHAIN, into)
    for name in ("runtime.o", "runtime-checked.o"):
        assert (into / name).stat().st_size > 10_000
        # kept with its digest after it, which a damaged entry fails
        kept = (tmp_path / "cache" / f"cpu-{key}-{name}").read_bytes()
        assert kept[:-32] == (into / name).read_bytes()


@pytest.mark.parametrize(
    "opening",
    ["namespace gg_harness", "namespace gg", "namespace gg::detail", "namespace std",
     "inline namespace gg"],
)  # fmt: skip
def test_nothing_is_declared_in_the_runtime_s_namespaces(opening: str) -> None:
    # the harness, when it came after the kernel's file in one unit, called its kernel entry
    # `gg_kernel` (and write, mmap, ssize_t...) without `::`: this pointer was found first (red
    # team, session 23: an empty kernel passed ex1). The runtime's names are still the runtime's
    # alone.
    code = (
        "__device__ void helper(const float *A, const float *B, float *C, int M, int K, int N)"
        " {}\n"
        f"{opening} {{\n"
        "__device__ void (*gg_kernel)(const float *, const float *, float *, int, int, int) ="
        " helper;\n}\n"
    )
    problems = unsupported_constructs(KernelSource(code + KERNEL, "kernel.cu"))
    assert problems and problems[0].startswith("kernel.cu:2: code in a namespace of the CPU ")


def test_a_runtime_that_does_not_build_leaves_no_compiler_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the fast object's compiler fails at once; the checked one's was left running, unreaped
    from grader.backends import cpu_unit

    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    started: list[subprocess.Popen[str]] = []
    real_popen = subprocess.Popen

    def commands(runtime: Path, output: Path, checked: bool) -> list[str]:
        return ["sleep", "60"] if checked else ["sh", "-c", "echo 'no runtime' >&2; exit 1"]

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[str]:
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(cpu_unit, "runtime_command", commands)
    monkeypatch.setattr(cpu_unit.subprocess, "Popen", popen)
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(UnsupportedKernelError, match="the CPU runtime does not build: no runtime"):
        cpu_unit.runtime_objects(TOOLCHAIN, into)
    assert len(started) == 2
    assert all(process.returncode is not None for process in started)

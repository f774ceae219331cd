from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.backends.compiler import CompiledKernel, CompileFailure, compile_kernel
from grader.source import KernelSource, read_source
from tests.conftest import ROOT

EX1 = ROOT / "solutions/ex1-non-square"


def test_the_solution_compiles_to_a_cubin_and_reports_resources() -> None:
    result = compile_kernel(read_source(EX1 / "kernel.cu"), "matmul_tiled", {"TILE_SIZE": 16})
    assert isinstance(result, CompiledKernel)
    assert result.cubin_path.read_bytes()[:4] == b"\x7fELF"
    assert result.registers and result.registers > 0
    assert result.shared_bytes == 2 * 16 * 16 * 4


def test_the_tile_size_define_reaches_the_compiler() -> None:
    result = compile_kernel(read_source(EX1 / "kernel.cu"), "matmul_tiled", {"TILE_SIZE": 32})
    assert isinstance(result, CompiledKernel)
    assert result.shared_bytes == 2 * 32 * 32 * 4


def test_a_syntax_error_names_the_students_file_and_line() -> None:
    result = compile_kernel(read_source(EX1 / "wrong/syntax_error.cu"), "matmul_tiled", {})
    assert isinstance(result, CompileFailure)
    first = result.message.splitlines()[0]
    assert first.startswith('syntax_error.cu:19: error: expected a ";"')


def test_a_missing_kernel_lists_the_kernels_found() -> None:
    result = compile_kernel(read_source(EX1 / "wrong/misnamed_kernel.cu"), "matmul_tiled", {})
    assert isinstance(result, CompileFailure)
    assert "no __global__ function named 'matmul_tiled'" in result.message
    assert "matmulTiled (line" in result.message


def test_an_include_is_refused_before_compiling_and_nothing_of_the_file_is_shown(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    source = KernelSource(f'#include "{secret}"\n__global__ void k() {{}}\n', "kernel.cu")
    result = compile_kernel(source, "k", {})
    assert isinstance(result, CompileFailure)
    assert result.message.startswith("kernel.cu:1: #include is not allowed")
    assert "TOP-SECRET" not in result.message and str(secret) not in result.message


def test_compiled_modules_are_cached_by_source_and_options() -> None:
    source = KernelSource("__global__ void cached(float *a) { a[0] = 1.0f; }\n", "kernel.cu")
    first = compile_kernel(source, "cached", {"TILE_SIZE": 8})
    assert isinstance(first, CompiledKernel)
    inode = os.stat(first.cubin_path).st_ino  # a rebuild replaces the file (a new inode)
    again = compile_kernel(source, "cached", {"TILE_SIZE": 8})
    assert isinstance(again, CompiledKernel)
    assert again.cubin_path == first.cubin_path
    assert os.stat(again.cubin_path).st_ino == inode
    other = compile_kernel(source, "cached", {"TILE_SIZE": 16})
    assert isinstance(other, CompiledKernel)
    assert other.cubin_path != first.cubin_path


@pytest.mark.parametrize("variant", sorted((ROOT / "solutions").glob("*/kernel.cu")))
def test_every_solution_and_stub_compiles(variant: Path) -> None:
    from grader.course import load_course

    course = load_course(ROOT)
    exercise = next(e for e in course.exercises if e.solution_directory == variant.parent)
    for path in (exercise.solution, exercise.stub):
        result = compile_kernel(
            read_source(path), exercise.spec.kernel.name, exercise.spec.kernel.defines
        )
        assert isinstance(result, CompiledKernel), path

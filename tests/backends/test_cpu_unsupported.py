"""Where the CPU backend finds a __shared__ variable that g++ would place out of the shared memory
each block gets (in a template's body), or could not place with the others (in an inline
function, beside one elsewhere), and where it must not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.backends import cpu_builtins
from grader.backends.cpu_builtins import missing_builtin
from grader.backends.cpu_unsupported import (
    shared_in_inline_and_elsewhere,
    shared_in_template,
    unsupported_constructs,
)
from grader.source import KernelSource


@pytest.mark.parametrize(
    "code",
    [
        "template <int T> __device__ void f() { __shared__ float a[T]; }",
        "template <class T> struct S { __device__ void f() { __shared__ T a[4]; } };",
        "template <int T = (2 > 1)> __device__ void f() { if (1) { __shared__ float a[T]; } }",
        # a generic lambda is a template without `template <` (red team, rounds 17 and 18)
        "__device__ float *f() { auto g = [](auto n) { __shared__ float a[5]; return a + n; };"
        " return g(0); }",
        "__global__ void k() { [&] (int i, const auto &j) mutable -> int { __shared__ int a;"
        " return a; }(1, 2); }",
        # a variable template: its declaration ends at `;`, with no body (round 20)
        "namespace { template <int N> __shared__ float ones[N]; }",
    ],
)
def test_a_shared_variable_in_a_templates_body_is_found(code: str) -> None:
    assert shared_in_template(code) == code.index("__shared__")


@pytest.mark.parametrize(
    "code",
    [
        "__device__ void f() { __shared__ float a[16]; }",  # not a template
        "template <int T> __device__ void f();\n__global__ void k() { __shared__ float a[4]; }",
        "template <int T> __device__ int g() { return T; }\n"
        "__global__ void k() { __shared__ float a[4]; a[0] = g<1>(); }",
        "__global__ void k() { s.template get<1>(); { __shared__ float a[4]; } }",
        # a lambda whose parameters are not `auto`, and a generic one without shared variables
        "__global__ void k() { auto g = [](int n) { __shared__ float a[5]; return a[n]; }; }",
        "__global__ void k() { __shared__ float a[5]; auto g = [](auto n) { return n; }; }",
    ],
)
def test_a_shared_variable_outside_every_template_is_not_found(code: str) -> None:
    assert shared_in_template(code) is None


_KERNEL_SHARED = "\n__global__ void k() { __shared__ float t[4]; }"


@pytest.mark.parametrize(
    "helper",
    [
        "__device__ inline float f() { __shared__ float s[4]; return s[0]; }",
        "__device__ __forceinline__ float f() { __shared__ float s[4]; return s[0]; }",
        "struct S { __device__ float g() { __shared__ float s[4]; return s[0]; } };",
    ],
)
def test_shared_variables_in_an_inline_function_and_elsewhere_are_found(helper: str) -> None:
    # g++: "causes a section type conflict"; found in the source, before any build
    code = helper + _KERNEL_SHARED
    assert shared_in_inline_and_elsewhere(code) == code.index("__shared__")


@pytest.mark.parametrize(
    "code",
    [
        "__device__ inline float f() { __shared__ float s[4]; return s[0]; }\n"
        "__global__ void k() { f(); }",  # only inline ones: one kind of section, it builds
        "__device__ float f() { __shared__ float s[4]; return s[0]; }" + _KERNEL_SHARED,
        "__device__ inline float f();\nstruct P { float x; };" + _KERNEL_SHARED,
        "struct P { float x; };\n__global__ void k() { __shared__ float t[4]; P p = {1}; }",
        "inline namespace v1 { __device__ float f() { __shared__ float s[4]; return s[0]; } }"
        + _KERNEL_SHARED,
    ],
)
def test_shared_variables_of_one_kind_of_section_are_not_found(code: str) -> None:
    assert shared_in_inline_and_elsewhere(code) is None


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("y = __fma_rz(a, b, c);", "__fma_rz"),  # CUDA has it; the runtime does not
        ("atomicAdd_block(p, 1);", "atomicAdd_block"),
        ("z = normcdff(x);", "normcdff"),  # a CUDA math function <cmath> lacks
        ("return __threadfence_system();", "__threadfence_system"),
    ],
)
def test_a_cuda_built_in_the_runtime_lacks_is_found(code: str, name: str) -> None:
    assert missing_builtin(code) == (code.index(name), name)


@pytest.mark.parametrize(
    "code",
    [
        "x = __mul24(a, b) + __fadd_rd(x, y) + __syncthreads_count(p); atomicInc(q, 3);",
        "__device__ int __mine(int a) { return a; }\nx = __mine(2);",  # its own function
        "#define __sq(x) ((x) * (x))\ny = __sq(2);",  # its own macro
        "float normcdff(float x) { return x; }\nz = normcdff(x);",
        "z = std::norm(c) + v.norm() + p->rnorm();",  # not CUDA's: a namespace's, a member
        "__attribute__((aligned(16))) float x; y = __builtin_expect(x, 1);",  # g++'s own
    ],
)
def test_what_the_runtime_or_the_file_itself_provides_is_not_found(code: str) -> None:
    assert missing_builtin(code) is None


def test_the_runtimes_names_kept_in_the_cache_are_the_ones_its_headers_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path))
    cpu_builtins._provided.cache_clear()
    scanned = cpu_builtins._provided()
    (kept,) = tmp_path.glob("cpu-builtins-*.json")
    assert "__syncthreads" in scanned and "atomicAdd" in scanned
    cpu_builtins._provided.cache_clear()
    assert cpu_builtins._provided() == scanned  # read back
    kept.write_text("{not json")  # a damaged entry is scanned again, and written anew
    cpu_builtins._provided.cache_clear()
    assert cpu_builtins._provided() == scanned
    assert json.loads(kept.read_text()) == sorted(scanned)
    cpu_builtins._provided.cache_clear()


@pytest.mark.parametrize(
    "attribute",
    [
        '[[gnu::aligned(a[b[0]]), gnu::section(".data")]]',  # a ]] inside the list
        '[[gnu::aligned(a[b[0] ]), gnu::section(".data")]]',
        '<:<:gnu::aligned(a<:b<:0:>:>), gnu::section(".data"):>:>',
    ],
)
def test_an_attribute_list_is_read_to_its_own_end(attribute: str) -> None:
    # the fourth red-team round: the scan ended the list at the first ]], and g++ assembled an
    # .incbin the section attribute carried
    arrays = "constexpr int b[1] = {0};\nconstexpr int a[1] = {16};\n"
    text = f"{arrays}__device__ int v {attribute} = 1;\n"
    (found,) = unsupported_constructs(KernelSource(text, "kernel.cu"))
    assert found.startswith("kernel.cu:3: the attribute 'section' is not supported"), found

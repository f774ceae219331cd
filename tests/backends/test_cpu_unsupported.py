"""Where the CPU backend finds a __shared__ variable in a template's body (which g++ would
place out of the shared memory each block gets), and where it must not."""

from __future__ import annotations

import pytest

from grader.backends.cpu_unsupported import shared_in_template


@pytest.mark.parametrize(
    "code",
    [
        "template <int T> __device__ void f() { __shared__ float a[T]; }",
        "template <class T> struct S { __device__ void f() { __shared__ T a[4]; } };",
        "template <int T = (2 > 1)> __device__ void f() { if (1) { __shared__ float a[T]; } }",
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
    ],
)
def test_a_shared_variable_outside_every_template_is_not_found(code: str) -> None:
    assert shared_in_template(code) is None

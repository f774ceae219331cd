"""The spec's building blocks: shapes, launches and defines are checked where they are read."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from grader.spec import KernelSpec, LaunchSpec, Shape, check_shape, parse_shape


@pytest.mark.parametrize("text", ["0x1x1", "1x2", "axbxc", "16385x1x1", "-1x2x3"])
def test_a_shape_outside_the_rules_is_refused_saying_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"MxKxN|at most 16384"):
        check_shape(text)


def test_a_shape_reads_as_its_three_dimensions() -> None:
    assert parse_shape(check_shape(" 17 x33x 65 ")) == Shape(17, 33, 65)
    assert str(Shape(17, 33, 65)) == "17x33x65"


def test_a_block_over_1024_threads_is_refused() -> None:
    with pytest.raises(ValidationError, match="at most 1024 threads"):
        LaunchSpec(block=(64, 32), tile=(64, 32))


def test_a_define_that_could_collide_with_nvrtc_s_headers_is_refused() -> None:
    with pytest.raises(ValidationError, match="UPPER_CASE with an underscore"):
        KernelSpec(name="k", defines={"T": 16})

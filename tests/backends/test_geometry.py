"""The launch grid, computed in one place from the spec's block and tile and the shape of C."""

from __future__ import annotations

from grader.backends.geometry import Geometry, launch_geometry


def test_the_grid_covers_c_with_whole_tiles() -> None:
    # tile = (columns, rows): x walks the N columns, y the M rows
    assert launch_geometry((16, 16), (32, 32), 1000, 999) == Geometry((32, 32), (16, 16))
    assert launch_geometry((16, 16), (16, 16), 17, 65) == Geometry((5, 2), (16, 16))
    assert launch_geometry((8, 4), (8, 4), 1, 1) == Geometry((1, 1), (8, 4))

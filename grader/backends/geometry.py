"""Launch geometry: the one place a grid is computed, from the spec's block and tile (LaunchSpec)
and the shape of C. Every backend launches with what this gives."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Geometry:
    """Blocks in the grid and threads per block, as (x, y): x walks the columns of C."""

    grid: tuple[int, int]
    block: tuple[int, int]


def launch_geometry(block: tuple[int, int], tile: tuple[int, int], m: int, n: int) -> Geometry:
    """The grid covering an m x n C with tiles of `tile` = (columns, rows) elements, one block of
    `block` threads per tile: (ceil(n / columns), ceil(m / rows))."""
    columns, rows = tile
    return Geometry(grid=(-(-n // columns), -(-m // rows)), block=block)

"""`grader cache`: where the build cache is, what it holds, and clearing it."""

from __future__ import annotations

from rich.console import Console

from grader import program_cache
from grader.errors import EXIT_OK


def _megabytes(count: int) -> str:
    return f"{count / (1024 * 1024):,.1f} MB"


def run(clear: bool) -> int:
    console = Console(highlight=False)
    if clear:
        removed = program_cache.clear()
        console.print(f"removed {removed} file(s) from {program_cache.cache_dir()}")
        return EXIT_OK
    stats = program_cache.stats()
    console.print(f"build cache: {stats.directory}")
    console.print(
        f"  {stats.entries} file(s), {stats.cpu_programs} of them CPU programs; "
        f"{_megabytes(stats.total_bytes)} of {_megabytes(stats.limit_bytes)} "
        f"({program_cache.LIMIT_ENV} sets the cap; least recently used builds go first)"
    )
    console.print("  clear it with: grader cache clear")
    return EXIT_OK

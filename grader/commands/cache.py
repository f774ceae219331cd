"""`grader cache [clear]`: where the build cache is, what it holds, and clearing it."""

from __future__ import annotations

from rich.console import Console

from grader import program_cache
from grader.errors import EXIT_OK
from grader.report.notices import cache_cleared, print_cache


def run(*, clear: bool = False) -> int:
    console = Console(highlight=False)
    if clear:
        removed = program_cache.clear()
        console.print(cache_cleared(removed, program_cache.cache_dir()))
    else:
        print_cache(program_cache.stats(), console)
    return EXIT_OK

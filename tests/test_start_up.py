"""What a `grader` process loads before its work: numpy (about 0.1 s of CPU, and the start of
OpenBLAS's threads) only where kernels run, in the grading child; the parent of `grader check`
and the commands that read the course and the results import none."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

_RUN_THEN_SAY = """
import atexit, sys
atexit.register(lambda: print("numpy:", "numpy" in sys.modules, file=sys.stderr))
from grader.cli import main
sys.exit(main(sys.argv[1:]))
"""


_EX1_SOLUTION = str(ROOT / "solutions" / "ex1-non-square" / "kernel.cu")


@pytest.mark.parametrize(
    "args",
    [["list"], ["check", "ex1", "--backend", "cpu", "-k", "tiny", "--file", _EX1_SOLUTION]],
    ids=["list", "check"],
)
def test_the_grader_s_own_process_imports_no_numpy(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _RUN_THEN_SAY, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "numpy: False" in done.stderr.splitlines()


def test_the_modules_a_parent_plans_checks_with_import_no_numpy() -> None:
    # every command a batch or a review runs in the parent, and the checks' plans
    modules = ["grader.commands." + name for name in ("check", "batch", "review", "gradebook")]
    probe = f"import sys, {', '.join(modules)}; print('numpy' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"

"""A Gradescope export with names alike after clean-up, a group, and names like formulas."""

from __future__ import annotations

from pathlib import Path

from tests.batch.zips import GOOD
from tests.conftest import ROOT

WRONG = (
    ROOT / "solutions/ex4-register-tiling/wrong/no_edge_guards.cu"
).read_bytes()  # 33.33 of 80 on the CPU backend
FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"]

METADATA = """\
submission_1:
  :submitters:
  - :name: a b
submission_2:
  :submitters:
  - :name: a_b
submission_3:
  :submitters:
  - :name: '+cmd'
    :sid: '=HYPERLINK("http://evil.example","x")'
  - :name: Bo
    :sid: '-2+3'
    :email: '@SUM(A1)'
submission_4:
  :submitters:
  - :name: a b
"""


def write_export(root: Path) -> Path:
    """The export's folders under `root`, and its submission_metadata.yml."""
    kernels = {"submission_1": GOOD, "submission_2": WRONG, "submission_3": GOOD}
    for folder, kernel in {**kernels, "submission_4": WRONG}.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "kernel.cu").write_bytes(kernel)
    (root / "submission_metadata.yml").write_text(METADATA)
    return root

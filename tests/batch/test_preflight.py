"""The batch's preflight: the GPU probe runs the package from this checkout with the caller's
own import path kept (dependencies installed on PYTHONPATH, as on the lent GPU machine)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from grader.batch import preflight
from grader.errors import GraderError
from tests.conftest import ROOT


def test_the_gpu_probe_keeps_the_callers_import_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(argv: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        seen.update(options)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    monkeypatch.setattr(preflight.subprocess, "run", fake_run)
    assert preflight._gpu_unusable() is None
    assert seen["env"]["PYTHONPATH"].split(":") == [str(ROOT), str(tmp_path / "site")]


def test_auto_on_a_host_whose_gpu_is_unusable_checks_the_sandbox_before_grading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # GPU device files but no usable GPU (a driver too old, CUDA_VISIBLE_DEVICES=""): every
    # grading would fall back to the CPU and be refused one by one, and the batch end with
    # blanks and exit status 0; the sandbox is checked up front instead, as without a GPU
    shared = tmp_path / "open"
    shared.mkdir(mode=0o755)
    monkeypatch.setenv("GRADER_BWRAP", "none")  # no bubblewrap: the hidden paths must be closed
    monkeypatch.setattr(preflight, "_gpu_present", lambda: True)
    monkeypatch.setattr(preflight, "_gpu_unusable", lambda: "no usable CUDA GPU (driver too old)")
    monkeypatch.setattr(preflight.sandbox.choice, "readable_by_others", lambda p: p == shared)
    with pytest.raises(GraderError, match=r"readable by any user|no isolation"):
        preflight.lane_envs("auto", [shared], tmp_path / "out", [], unsafe_no_sandbox=False)

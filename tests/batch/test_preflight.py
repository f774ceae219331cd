"""The batch's preflight: the GPU probe runs the package from this checkout with the caller's
own import path kept (dependencies installed on PYTHONPATH, as on the lent GPU machine)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from grader.batch import preflight
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

"""The batch's preflight: the GPU probe runs the package from this checkout with the caller's
own import path kept (dependencies installed on PYTHONPATH, as on the lent GPU machine)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest

from grader.batch import preflight
from grader.errors import GraderError
from tests.conftest import ROOT, gpu_unavailable_reason


class _FakeProbeProcess:
    """Popen's stand-in: records how it was started, answers as told."""

    seen: ClassVar[dict[str, Any]] = {}

    def __init__(self, argv: list[str], **options: Any) -> None:
        _FakeProbeProcess.seen.update(options)
        self.returncode = 0
        self.answers: list[tuple[str, str] | Exception] = [("", "")]

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.returncode = -9


def test_the_gpu_probe_keeps_the_callers_import_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    monkeypatch.setattr(preflight.subprocess, "Popen", _FakeProbeProcess)
    assert preflight.GpuProbe().why_not is None
    assert _FakeProbeProcess.seen["env"]["PYTHONPATH"].split(":") == [
        str(ROOT),
        str(tmp_path / "site"),
    ]


def test_a_gpu_probe_that_never_answers_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(preflight.subprocess, "Popen", _FakeProbeProcess)
    probe = preflight.GpuProbe()
    hung = subprocess.TimeoutExpired("python", preflight.PROBE_TIMEOUT_S)
    probe._process.answers = [hung, ("", "")]  # type: ignore[attr-defined]
    assert probe.why_not == "the GPU probe gave no answer within 120 s"
    assert probe._process.poll() == -9  # killed, not left running


def test_a_gpu_asked_for_where_device_files_exist_but_none_works_is_one_line_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # with NVIDIA device files, the grading children start while the probe answers; a GPU
    # that does not work is still one line, exit 2, before anyone is graded, and the children
    # started meanwhile are ended
    from grader import children
    from grader.cli import main

    if gpu_unavailable_reason() is None:
        pytest.skip("this machine has a usable GPU")
    started: list[children.Spawned] = []
    spawn = children.spawn

    def counted(*args: Any, **options: Any) -> children.Spawned:
        started.append(spawn(*args, **options))
        return started[-1]

    monkeypatch.setattr(preflight, "_gpu_present", lambda: True)
    monkeypatch.setattr(children, "spawn", counted)
    submissions = tmp_path / "class"
    (submissions / "s1" / "ex4-register-tiling").mkdir(parents=True)
    kernel = ROOT / "solutions/ex4-register-tiling/kernel.cu"
    (submissions / "s1" / "ex4-register-tiling" / "kernel.cu").write_text(kernel.read_text())
    out = tmp_path / "out"
    argv = ["batch", str(submissions), "--out", str(out), "--exercise", "ex4", "--gpus", "0"]
    assert main(argv) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1].startswith("grader: error: --gpus 0: not usable here: no usable CUDA GPU")
    assert started, "the children did not start before the probe answered"
    assert all(s.process.poll() is not None for s in started)  # every child ended
    assert not out.exists()


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
    monkeypatch.setattr(preflight, "GpuProbe", _UnusableGpu)
    monkeypatch.setattr(preflight.sandbox.choice, "readable_by_others", lambda p: p == shared)
    started = preflight.start_preflight("auto", [shared], tmp_path / "out", [], False)
    with pytest.raises(GraderError, match=r"readable by any user|no isolation"):
        started.confirm()


class _UnusableGpu:
    why_not = "no usable CUDA GPU (driver too old)"

    def close(self) -> None:
        pass

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("GRADER_CACHE_DIR", tempfile.mkdtemp(prefix="grader-test-cache-"))


@functools.cache
def gpu_unavailable_reason() -> str | None:
    """None when a CUDA GPU is usable, else why not."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return None
        return "no CUDA GPU found"
    except Exception as exc:
        return f"no usable CUDA GPU ({str(exc).splitlines()[0]})"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    reason = gpu_unavailable_reason()
    if reason:
        for item in gpu_items:
            item.add_marker(pytest.mark.skip(reason=f"needs a GPU: {reason}"))


def nvrtc_log(text: str) -> str:
    """NVRTC's log for `text` compiled as the grader compiles kernels (sm_90), success or not."""
    import contextlib

    from cupy.cuda import nvrtc

    from grader.backends.compiler import nvrtc_options

    program = nvrtc.createProgram(text, "kernel.cu", [], [])
    try:
        with contextlib.suppress(nvrtc.NVRTCError):
            nvrtc.compileProgram(program, nvrtc_options("sm_90", {}))
        return str(nvrtc.getProgramLog(program))
    finally:
        nvrtc.destroyProgram(program)


def run_grader(args: Sequence[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the grader CLI as a user would, in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A writable copy of the course's data (course.yaml, exercises, solutions, reference)."""
    import shutil

    for name in ("course.yaml",):
        shutil.copy(ROOT / name, tmp_path / name)
    for name in ("exercises", "solutions", "reference"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path

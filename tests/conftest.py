from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# One build cache for the whole run: set here in the main process, before pytest -n starts its
# workers, so they all inherit it (bin/dev test points it at .grader-cache, which validate has
# just filled). The cache is safe for writers side by side: each entry is written to a file of
# its writer's own and renamed into place.
os.environ.setdefault("GRADER_CACHE_DIR", tempfile.mkdtemp(prefix="grader-test-cache-"))


class RunLock:
    """Tests side by side (`pytest -n`, pytest-xdist): every test holds the run's lock shared;
    a test marked `alone`, or a fixture inside `alone()`, holds it exclusively, so no other
    test runs meanwhile (it loads every core, fills memory, or measures time). A no-op in a
    run without workers."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.depth = 0  # > 0 while this process holds the lock exclusively

    def open(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    @contextlib.contextmanager
    def hold(self, exclusive: bool) -> Iterator[None]:
        if self.fd is None:  # no workers: nothing runs beside this test anyway
            yield
            return
        if self.depth:  # this process holds it exclusively already (a fixture's `alone()`)
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        fcntl.flock(self.fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        self.depth = int(exclusive)
        try:
            yield
        finally:
            self.depth = 0
            fcntl.flock(self.fd, fcntl.LOCK_UN)


RUN_LOCK = RunLock()


def alone() -> contextlib.AbstractContextManager[None]:
    """No other test runs inside this block (for fixtures wider than one test)."""
    return RUN_LOCK.hold(exclusive=True)


@pytest.fixture(scope="session", autouse=True)
def _run_lock(tmp_path_factory: pytest.TempPathFactory) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # each worker's temporary folder is below one folder of the whole run
        RUN_LOCK.open(tmp_path_factory.getbasetemp().parent / "alone.lock")


@pytest.fixture(autouse=True)
def _alone_or_together(request: pytest.FixtureRequest, _run_lock: None) -> Iterator[None]:
    with RUN_LOCK.hold(exclusive=request.node.get_closest_marker("alone") is not None):
        yield


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


def run_grader(
    args: Sequence[str], cwd: Path = ROOT, typed: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the grader CLI as a user would, in a fresh process; `typed`: its standard input;
    `env`: its whole environment (this process's by default)."""
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=cwd,
        env=env,
        input=typed,
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


SMALL_SHAPES = {
    "512x768x1024": "64x96x128",
    "1024x1024x1024": "128x128x128",
    "512x512x512": "96x96x96",
    "1100x7x1030": "140x7x134",
    "33x2049x47": "33x257x47",
}
"""The cases that take nearly all of a CPU grading's time, each replaced by one many times
smaller: the largest, whose sizes stay multiples of every tile (as the originals are), and the
wide and long-K ones, where a wrong kernel (a stub that loops over N for K) is launched again
to tell its mistake, whose sizes keep their remainders modulo every tile (8 to 64). A kernel's
verdict on each case, and so its points, are the same, except a kernel that treats a size over
1024 differently (no test grades one on this course)."""


@pytest.fixture(scope="session")
def small_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course whose largest cases are small, for tests of what surrounds a grading
    (batches, Gradescope, outputs) where the size of the matrices is not the point. Each case
    keeps its name, so reports list the same checks as the course's own."""
    import shutil

    root = tmp_path_factory.mktemp("small-course")
    shutil.copy(ROOT / "course.yaml", root / "course.yaml")
    for name in ("exercises", "solutions", "reference"):
        shutil.copytree(ROOT / name, root / name)
    for spec in root.glob("exercises/*/spec.yaml"):
        text = spec.read_text()
        for big, small in SMALL_SHAPES.items():
            text = text.replace(f"{{shape: {big},", f"{{shape: {small},")
        spec.write_text(text)
    root.chmod(0o755)  # readable where the sandbox runs as a user of its own
    return root

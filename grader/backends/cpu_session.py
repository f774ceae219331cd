"""A running CPU program that takes one launch at a time (see cpu_runtime/harness_main.hpp), so
that a kernel's `__device__` variables keep their values from one launch to the next, as they do
on a GPU while the module is loaded: a kernel that skips its work when it has seen the inputs
before fails here as it does there. (A build has two programs, fast and checked, each with its
copy: a kernel with `__device__` variables runs all its launches in the fast one, cpu.py.)

The program runs in the sandbox with the grader's limits, from a copy in a work directory of its
own. Inputs and outputs go through the pipes the grader holds, never through files the program
could replace (with a link to a host file, say). Each request names the launch's CPU time, which
the program adds to what it has used so far (its own RLIMIT_CPU); the program answers "ok" and
the launch's outputs on its stdout, and prints nothing else there (the kernel's printf goes to
/dev/null)."""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt

from grader import sandbox

FloatArray = npt.NDArray[np.float32]

_STDERR_KEPT = 256 * 1024
_CLOSE_S = 10.0


class ProgramEndedError(Exception):
    """The program stopped during a launch: its exit status and what it printed meanwhile."""

    def __init__(self, returncode: int, stderr: str) -> None:
        super().__init__(f"the program exited with status {returncode}")
        self.returncode = returncode
        self.stderr = stderr


def _read_capped(stream: IO[bytes], start: int) -> str:
    """The start and the end of what the stream holds past `start` (sanitizer reports come at
    the end of a huge stream)."""
    size = stream.seek(0, os.SEEK_END)
    half = _STDERR_KEPT // 2
    stream.seek(start)
    if size - start <= _STDERR_KEPT:
        return stream.read().decode("utf-8", "replace")
    head = stream.read(half)
    stream.seek(size - half)
    tail = stream.read(half)
    return (head + b"\n...\n" + tail).decode("utf-8", "replace")


def program_env() -> dict[str, str]:
    """None of the grader's environment (secrets, tokens); the sanitizers' settings."""
    env = sandbox.clean_env()
    env["ASAN_OPTIONS"] = (
        "detect_leaks=0:abort_on_error=0:exitcode=71:detect_stack_use_after_return=0:"
        f"hard_rss_limit_mb={sandbox.rss_limit_mb()}:"
        f"malloc_limit_mb={sandbox.rss_limit_mb()}"
    )
    env["UBSAN_OPTIONS"] = "halt_on_error=1:exitcode=72:print_stacktrace=1"
    return env


class Session:
    """One program, started in the sandbox from a copy in its own work directory; the
    sandbox's GraderError propagates when no isolation can be set up."""

    def __init__(self, program: Path, checked: bool) -> None:
        self.work = sandbox.workdir("grader-cpu-")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self._read_to = 0
        try:
            staged = self.work / "program"
            shutil.copyfile(program, staged)
            staged.chmod(0o555)
            self._process = sandbox.popen(
                [str(staged)],
                self.work,
                memory=not checked,
                env=program_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
        except BaseException:
            self.close()
            raise

    def launch(
        self, fields: list[str], inputs: Sequence[FloatArray], cpu_seconds: float
    ) -> tuple[list[FloatArray], str]:
        """Run one launch on `inputs` (A, B, C, guards included); returns them as the launch left
        them and what the program wrote to stderr meanwhile, or raises ProgramEndedError when the
        program stopped."""
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        sizes = [str(x.size) for x in inputs]
        request = " ".join([*fields, str(math.ceil(cpu_seconds * 1000)), *sizes]) + "\n"
        outputs: list[FloatArray] = []
        try:
            process.stdin.write(request.encode())
            for data in inputs:
                process.stdin.write(np.ascontiguousarray(data, dtype=np.float32).tobytes())
            process.stdin.flush()
            if _read_exactly(process.stdout, 3) == b"ok\n":
                for data in inputs:
                    raw = _read_exactly(process.stdout, data.size * 4)
                    if len(raw) != data.size * 4:
                        break
                    outputs.append(np.frombuffer(raw, dtype=np.float32).copy())
        except (BrokenPipeError, ConnectionResetError):
            pass
        if len(outputs) != len(inputs):
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_CLOSE_S)
            if process.poll() is None:
                process.kill()
                process.wait()
            raise ProgramEndedError(process.returncode, self._new_stderr())
        return outputs, self._new_stderr()

    def _new_stderr(self) -> str:
        self._stderr.flush()
        text = _read_capped(self._stderr, self._read_to)
        self._read_to = self._stderr.seek(0, os.SEEK_END)
        return text

    def close(self) -> None:
        """Stop the program (end of its requests) and remove the work directory."""
        process: subprocess.Popen[bytes] | None = getattr(self, "_process", None)
        if process is not None:
            for stream in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()  # end of requests: the program exits
            try:
                process.wait(timeout=_CLOSE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._stderr.close()
        sandbox.remove(self.work)


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    """`size` bytes, or fewer where the stream ends first."""
    parts: list[bytes] = []
    while size > 0:
        part = stream.read(size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)

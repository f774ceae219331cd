"""A running CPU program that takes one launch at a time (see cpu_runtime/harness_main.hpp), so
that a kernel's `__device__` variables keep their values from one launch to the next, as they do
on a GPU while the module is loaded: a kernel that skips its work when it has seen the inputs
before fails here as it does there.

The program runs in the sandbox with the grader's limits. Each request names the launch's CPU
time, which the program adds to what it has used so far (its own RLIMIT_CPU); the program
answers "ok" on its stdout once the launch's outputs are written, and prints nothing else there
(the kernel's printf goes to /dev/null)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import IO

from grader import sandbox

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
    """One program, started in the sandbox, with a work directory that only it and the grader
    use; `sandbox.wrap`'s GraderError propagates when the sandbox is required and missing."""

    def __init__(self, program: Path, checked: bool) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="grader-cpu-"))
        self._stderr = (self.work / "stderr.txt").open("w+b")
        self._read_to = 0
        try:
            command = sandbox.wrap([str(program)], self.work, [program])
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=program_env(),
                preexec_fn=sandbox.limits(memory=not checked),
            )
        except BaseException:
            self.close()
            raise

    def launch(self, fields: list[str], cpu_seconds: float) -> str:
        """Run one launch (its inputs already written to `work`); returns what the program wrote
        to stderr meanwhile, or raises ProgramEndedError when the program stopped."""
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        request = " ".join([str(self.work), *fields, str(int(cpu_seconds + 0.999))]) + "\n"
        try:
            process.stdin.write(request.encode())
            process.stdin.flush()
            reply = process.stdout.readline()
        except BrokenPipeError:
            reply = b""
        if reply != b"ok\n":
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_CLOSE_S)
            if process.poll() is None:
                process.kill()
                process.wait()
            raise ProgramEndedError(process.returncode, self._new_stderr())
        return self._new_stderr()

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
        shutil.rmtree(self.work, ignore_errors=True)

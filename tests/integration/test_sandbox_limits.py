"""Limits on one grading as a whole, attacked by a probe program run as the CPU backend runs a
student's program (`sandbox.popen`, inside a grading scope): a fork bomb is held to the process
limit and nothing it started outlives the grading; processes that each stay under the per-process
limits but together fill memory are seen by the memory watch and stopped, and the check says so;
a program that floods its output is stopped by the file-size limit and named as such."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from grader.backends.cpu_failures import explain_failure
from grader.checks.base import PlannedCheck
from grader.isolation import run_isolated
from grader.job import Job
from grader.sandbox import PROCESSES
from tests.conftest import ROOT

# integration: a probe built with g++, then whole gradings
pytestmark = [
    pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++"),
    pytest.mark.skipif(os.geteuid() != 0, reason="limits per sandbox user need root (as in CI)"),
    pytest.mark.slow,
]

PROBE = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const std::string mode = argv[1];
    if (mode == "fork") {  // as many processes as it can get, each waiting for ever
        int made = 0;
        for (int i = 0; i < 5000; ++i) {
            const pid_t pid = fork();
            if (pid == 0) { close(1); pause(); _exit(0); }
            if (pid > 0) ++made;
        }
        std::printf("%d\n", made);
        std::fflush(stdout);
        return 0;  // the children are left behind
    }
    if (mode == "hog") {  // several processes, each well under any per-process limit
        for (int i = 0; i < 7; ++i) {
            if (fork() == 0) {
                const size_t size = 100u << 20;
                char *block = static_cast<char *>(std::malloc(size));
                std::memset(block, 1, size);
                pause();
            }
        }
        pause();
    }
    if (mode == "spew") {  // output without end on stderr (a file of the grader's)
        static char line[1 << 16];
        std::memset(line, 'x', sizeof(line));
        for (;;) fwrite(line, 1, sizeof(line), stderr);
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("limits")
    (work / "probe.cpp").write_text(PROBE)
    program = work / "probe"
    subprocess.run(["g++", "-O1", str(work / "probe.cpp"), "-o", str(program)], check=True)
    work.chmod(0o755)
    return program


RUNNER = """
import json, os, subprocess, sys, time
sys.path.insert(0, {root!r})
from grader import sandbox
from grader.sandbox import identity
from grader.sandbox.scope import open_scope
scope = open_scope(sandboxed=True)
os.environ.update(scope.env)
work = sandbox.workdir("limits-")
program = work / "probe"
program.write_bytes(open({probe!r}, "rb").read())
program.chmod(0o555)
with sandbox.popen([str(program), sys.argv[1]], work, stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, text=True) as p:
    out, _ = p.communicate(timeout=120)
uid = scope.uid
left_running = len(identity.processes_of(uid))
scope.close()
print(json.dumps({{"made": out.strip(), "left_running": left_running,
                  "left_after_close": len(identity.processes_of(uid, zombies=True)),
                  "scope_removed": not scope.tmp.exists()}}))
"""


@pytest.mark.parametrize("bwrap", ["bwrap", "none"])
def test_a_fork_bomb_gets_at_most_the_process_limit_and_nothing_outlives_its_grading(
    probe: Path, bwrap: str
) -> None:
    if bwrap == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here")
    done = subprocess.run(
        [sys.executable, "-c", RUNNER.format(root=str(ROOT), probe=str(probe)), "fork"],
        capture_output=True,
        text=True,
        env={**os.environ, "GRADER_BWRAP": bwrap},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert 0 < int(result["made"]) < PROCESSES, result  # the limit, not 5000
    # not even zombies, which would hold the next grading's process limit
    assert result["left_after_close"] == 0 and result["scope_removed"], result


HOG_WORKER = """
import json, os, subprocess, sys, time
sys.path.insert(0, {root!r})
fd = int(sys.argv[1])
job = json.loads(sys.stdin.read())
from grader import sandbox
from grader.events import DeviceEvent, encode
from grader.results import DeviceInfo
out = os.fdopen(fd, "wb", buffering=0)
out.write(encode(DeviceEvent(device=DeviceInfo("cpu", "fake"))))
work = sandbox.workdir("hog-")
program = work / "probe"
program.write_bytes(open({probe!r}, "rb").read())
program.chmod(0o555)
sandbox.popen([str(program), "hog"], work, memory=True).wait()
"""


def test_processes_that_together_fill_memory_are_stopped_and_named(
    probe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seven processes of 100 MB each, in the sandbox's own session and user: each is far under
    # the per-process limit, together they are over the grading's 300 MB
    monkeypatch.setenv("GRADER_MEMORY_MB", "300")
    worker = tmp_path / "worker.py"
    worker.write_text(HOG_WORKER.format(root=str(ROOT), probe=str(probe)))
    planned = [PlannedCheck("correctness 64", "correctness", 1.0)]
    job = Job(spec={}, source_text="", display_name="k.cu", seed=1, backend="cpu")
    start = time.monotonic()
    _, results, _ = run_isolated(job, planned, 120.0, [sys.executable, str(worker)])
    assert time.monotonic() - start < 60
    assert results[0].status == "failed" and results[0].symptoms == ("memory",)
    assert "used more than 300 MB of host memory and was stopped" in results[0].message


def test_a_program_that_floods_its_output_is_stopped_by_the_file_size_limit(
    probe: Path,
) -> None:
    script = textwrap.dedent(
        f"""
        import subprocess, sys, tempfile
        sys.path.insert(0, {str(ROOT)!r})
        from grader import sandbox
        work = sandbox.workdir("spew-")
        program = work / "probe"
        program.write_bytes(open({str(probe)!r}, "rb").read())
        program.chmod(0o555)
        with tempfile.TemporaryFile() as err:
            code = sandbox.popen([str(program), "spew"], work, stderr=err).wait(timeout=120)
            print(code, err.seek(0, 2))
        sandbox.remove(work)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    code, written = (int(x) for x in done.stdout.split())
    assert written <= 16 * 1024 * 1024
    assert "killed by SIGXFSZ" in explain_failure("", code)

"""The sandbox that native student code (the CPU backend's builds and programs) runs in, attacked
from inside: a probe program of the test's own, compiled with g++, is run exactly as the backend
runs a student's program (`sandbox.popen`), in each way the sandbox can be set up here:

- `bubblewrap`: bubblewrap on the PATH and user namespaces allowed (this machine, CI);
- `user`, bubblewrap absent (`GRADER_BWRAP=none`);
- `user`, bubblewrap present but user namespaces refused, as Docker's default seccomp profile
  (and so Gradescope's container) does: the test starts the grader under such a filter.

Run as root (as CI and Gradescope run), which is the case that matters: root's capabilities must
not reach the program. Every attempt must fail, and the same probe run bare shows each attempt
can succeed (so the test can fail)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="the sandbox's own user needs root (CI and Gradescope run as root)"
)

PROBE = r"""
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <sched.h>
#include <string>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int done = 0;
static void report(const char *what, bool ok) { std::printf("%s %s\n", ok ? "DID" : "no", what); }

int main(int argc, char **argv) {
    // argv: GRADER_PID SECRET_FILE HOST_DIR
    const int grader = std::atoi(argv[1]);
    report("remount-usr-rw", mount("none", "/usr", nullptr, MS_REMOUNT | MS_BIND, nullptr) == 0);
    report("mount-tmpfs", mount("none", "/mnt", "tmpfs", 0, nullptr) == 0);
    report("unshare-user", unshare(CLONE_NEWUSER) == 0);
    report("unshare-mount", unshare(CLONE_NEWNS) == 0);
    report("setuid-root", setuid(0) == 0);
    int fd = open("/usr/bin/g++", O_WRONLY);
    report("write-usr-bin", fd >= 0);
    fd = open("/usr/grader-probe-was-here", O_WRONLY | O_CREAT, 0644);
    report("create-in-usr", fd >= 0);
    if (fd >= 0) unlink("/usr/grader-probe-was-here");
    fd = open("/etc/ld.so.cache", O_WRONLY);
    report("write-ld-cache", fd >= 0);
    fd = open(argv[2], O_RDONLY);
    report("read-secret", fd >= 0);
    std::string host = std::string(argv[3]) + "/written-by-probe";
    fd = open(host.c_str(), O_WRONLY | O_CREAT, 0644);
    report("write-host-dir", fd >= 0);
    fd = open("/tmp/grader-probe-tmp", O_WRONLY | O_CREAT, 0644);
    report("create-tmp-file", fd >= 0);
    // an output replaced by a link to a host file, for the grader to follow
    report("link-in-workdir", symlink(argv[2], "c.out") == 0);
    report("socket-inet", socket(AF_INET, SOCK_STREAM, 0) >= 0);
    report("socket-unix", socket(AF_UNIX, SOCK_STREAM, 0) >= 0);
    report("ptrace-grader", ptrace(PTRACE_ATTACH, grader, nullptr, nullptr) == 0);
    report("signal-grader", kill(grader, 0) == 0);
    std::string fds = "/proc/" + std::to_string(grader) + "/fd";
    DIR *dir = opendir(fds.c_str());
    report("list-grader-fds", dir != nullptr);
    bool wrote = false;
    for (int n = 0; n < 64; ++n) {  // the grader's result channel, by its number
        std::string path = fds + "/" + std::to_string(n);
        int channel = open(path.c_str(), O_WRONLY | O_NONBLOCK);
        if (channel >= 0 && write(channel, "{}\n", 3) == 3) wrote = true;
    }
    report("write-grader-fd", wrote);
    report("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0) >= 0 || errno != EPERM);
    // disk past the file-size limit: space reserved in the grader's file that holds stderr
    report("fallocate-stderr", fallocate(2, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0);
    // memory no process's resident size shows, and that outlives the process
    const int segment = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
    report("shmget", segment >= 0);
    if (segment >= 0) shmctl(segment, IPC_RMID, nullptr);  // the bare run leaves nothing
    report("memfd", memfd_create("hold", 0) >= 0);
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    report("bpf", syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)) >= 0 || errno != EPERM);
    return 0;
}
"""

ATTEMPTS = [
    "remount-usr-rw", "mount-tmpfs", "unshare-user", "unshare-mount", "setuid-root",
    "write-usr-bin", "create-in-usr", "write-ld-cache", "read-secret", "write-host-dir",
    "create-tmp-file", "link-in-workdir", "socket-inet", "socket-unix", "ptrace-grader",
    "signal-grader", "list-grader-fds", "write-grader-fd", "keyctl", "fallocate-stderr",
    "shmget", "memfd", "bpf",
]  # fmt: skip

RUNNER = textwrap.dedent(
    """
    import json, os, subprocess, sys
    sys.path.insert(0, {root!r})
    if {refuse_userns!r}:  # as Docker's default profile does: no new user namespaces
        from tests.docker_like import refuse_user_namespaces
        refuse_user_namespaces()
    from grader import sandbox
    from grader.sandbox import identity
    work = sandbox.workdir("probe-")
    program = work / "probe"
    program.write_bytes(open({probe!r}, "rb").read())
    program.chmod(0o555)
    mode = sandbox.mode()
    with sandbox.popen([str(program), str(os.getpid()), *sys.argv[1:]], work,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        out, err = p.communicate(timeout=60)
    uid = identity.sandbox_uid()
    sandbox.remove(work)
    print(json.dumps({{"mode": mode, "stdout": out, "stderr": err, "uid": uid}}))
    """
)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("probe")
    (work / "probe.cpp").write_text(PROBE)
    program = work / "probe"
    subprocess.run(["g++", "-O1", str(work / "probe.cpp"), "-o", str(program)], check=True)
    program.chmod(0o755)
    work.chmod(0o755)
    return program


def _targets(tmp_path: Path) -> tuple[Path, Path]:
    """A root-only secret (stands for the instructor's secret key, the solutions) and a host
    directory any user could write to (stands for the results directory, another's work)."""
    secret = tmp_path / "secret.key"
    secret.write_text("instructor secret")
    secret.chmod(0o600)
    host = tmp_path / "host"
    host.mkdir()
    host.chmod(0o777)
    tmp_path.chmod(0o755)
    return secret, host


def _run(probe: Path, tmp_path: Path, env: dict[str, str], refuse_userns: bool) -> dict[str, str]:
    secret, host = _targets(tmp_path)
    script = RUNNER.format(root=str(ROOT), refuse_userns=refuse_userns, probe=str(probe))
    done = subprocess.run(
        [sys.executable, "-c", script, str(secret), str(host)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, str] = json.loads(done.stdout.splitlines()[-1])
    return result


def _did(stdout: str) -> dict[str, bool]:
    return {line.split()[1]: line.startswith("DID") for line in stdout.splitlines()}


WAYS = {
    "bubblewrap": ({}, False),
    "user, no bubblewrap": ({"GRADER_BWRAP": "none"}, False),
    "user, user namespaces refused": ({}, True),
}


@needs_root
@pytest.mark.parametrize("way", list(WAYS))
def test_from_inside_every_escape_write_read_and_network_attempt_fails(
    probe: Path, tmp_path: Path, way: str
) -> None:
    if way == "bubblewrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here")
    env, refuse_userns = WAYS[way]
    result = _run(probe, tmp_path, env, refuse_userns)
    assert result["mode"] == ("bubblewrap" if way == "bubblewrap" else "user")
    did = _did(result["stdout"])
    assert sorted(did) == sorted(ATTEMPTS), result
    assert [what for what, ok in did.items() if ok] == [], result
    assert not (tmp_path / "host" / "written-by-probe").exists()
    assert int(result["uid"]) >= 1_900_000_000  # the grading's own unprivileged user


@needs_root
def test_the_probe_run_bare_as_root_does_what_the_sandbox_refuses(
    probe: Path, tmp_path: Path
) -> None:
    secret, host = _targets(tmp_path)
    bare = subprocess.run(
        [str(probe), str(os.getpid()), str(secret), str(host)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    did = _did(bare.stdout)
    # what root can do unsandboxed: the test above would see any of these getting through
    for attempt in ("read-secret", "write-host-dir", "create-tmp-file", "link-in-workdir",
                    "socket-inet",
                    "signal-grader", "list-grader-fds", "unshare-mount"):  # fmt: skip
        assert did[attempt], attempt
    Path("/tmp/grader-probe-tmp").unlink(missing_ok=True)
    (host / "written-by-probe").unlink(missing_ok=True)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_the_build_cannot_copy_a_host_file_into_the_program(tmp_path: Path) -> None:
    from grader import sandbox

    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("MARKER\n")
    work = sandbox.workdir("build-probe-")
    try:
        unit = work / "unit.cpp"
        unit.write_text(
            f'asm(".section .rodata\\n.incbin \\"{host_file}\\"\\n.text");\nint main() {{}}\n'
        )
        build = ["g++", str(unit), "-o", str(work / "program")]
        inside = sandbox.run(build, work, timeout=120, writable=True)
        assert inside.returncode != 0 and not (work / "program").exists()
        assert "file not found" in inside.stderr, inside.stderr
        # outside the sandbox, the same build can
        outside = subprocess.run([*build[:-1], str(tmp_path / "program")], check=False)
        assert outside.returncode == 0
    finally:
        sandbox.remove(work)

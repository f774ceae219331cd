"""The sandbox the CPU backend builds and runs native student code in, tested directly: the
grader no longer lets host code reach g++ (it builds the file as NVRTC sees it), so these probes
are programs of the test's own, run the way the backend runs its programs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader import sandbox
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("g++") is None,
    reason="needs bubblewrap and g++",
)

PROBE = r"""
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
    int seen = 0;
    for (int i = 1; i + 1 < argc; i += 2) {  // pairs: r PATH (try to read), w PATH (try to write)
        std::FILE *f = std::fopen(argv[i + 1], argv[i][0] == 'r' ? "r" : "w");
        if (f) { std::printf("%s %s\n", argv[i], argv[i + 1]); ++seen; std::fclose(f); }
    }
    const char *secret = std::getenv("GRADER_SECRET");
    if (secret) { std::printf("env %s\n", secret); ++seen; }
    return seen;
}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("probe")
    (work / "probe.cpp").write_text(PROBE)
    program = work / "probe"
    subprocess.run(["g++", "-O1", str(work / "probe.cpp"), "-o", str(program)], check=True)
    return program


def test_native_code_sees_no_host_file_no_secret_and_writes_only_its_directory(
    probe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_SECRET", "instructor-secret")
    work = tmp_path / "work"
    work.mkdir()
    host_file = tmp_path / "host-secret.txt"  # stands for ~/.ssh, another's submission
    host_file.write_text("not for students")
    solution = ROOT / "solutions/ex4-register-tiling/kernel.cu"
    outside = tmp_path / "written-by-kernel"
    attempts = ["r", str(host_file), "r", "/etc/passwd", "r", str(solution), "w", str(outside)]
    attempts += ["w", str(work / "allowed")]
    command = sandbox.wrap([str(probe), *attempts], work, [probe])
    done = subprocess.run(command, capture_output=True, text=True, env=sandbox.clean_env())
    # nothing read, no secret; a write outside lands in the sandbox's private /tmp, not the host's
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["w", "w"], done.stdout
    assert not outside.exists() and (work / "allowed").exists()
    # and without the sandbox the same probe does see them: the test can fail
    bare = subprocess.run([str(probe), *attempts], capture_output=True, text=True, check=False)
    assert "host-secret" in bare.stdout and "env instructor-secret" in bare.stdout
    outside.unlink(missing_ok=True)


def test_the_build_cannot_copy_a_host_file_into_the_program(tmp_path: Path) -> None:
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("MARKER\n")
    work = tmp_path / "work"
    work.mkdir()
    unit = work / "unit.cpp"
    unit.write_text(
        f'asm(".section .rodata\\n.incbin \\"{host_file}\\"\\n.text");\nint main() {{}}\n'
    )
    build = ["g++", str(unit), "-o", str(work / "program")]
    inside = subprocess.run(
        sandbox.wrap(build, work), capture_output=True, text=True, env=sandbox.clean_env()
    )
    assert inside.returncode != 0 and not (work / "program").exists()
    assert (
        subprocess.run(build, capture_output=True, check=False).returncode == 0
    )  # outside: it can

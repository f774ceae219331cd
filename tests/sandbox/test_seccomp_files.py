"""A student's program may change no file's mode, extended attributes or inode flags, nor reach
the mount API, by the calls newer kernels added too: fchmodat2 (Linux 6.6), removexattrat
(6.13), open_tree_attr (6.15) and file_setattr (6.17), which the filter refuses by number where
libseccomp cannot name them. Each call is made twice from a process of its own, bare and under
the program's filter, on a file that process owns: bare it gets through to the file, filtered it
is refused with EPERM."""

from __future__ import annotations

import errno
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT

CALLS = {
    # fchmodat2(AT_FDCWD, path, mode, flags)
    "fchmodat2": "libc.syscall(452, AT_FDCWD, path, 0o600, 0)",
    # removexattrat(AT_FDCWD, path, at_flags, name): an attribute the file does not have
    "removexattrat": "libc.syscall(466, AT_FDCWD, path, 0, b'user.grader-probe')",
    # open_tree_attr(AT_FDCWD, path, flags, attr, size): no clone, no attributes (a descriptor)
    "open_tree_attr": "min(libc.syscall(467, AT_FDCWD, path, 0, None, 0), 0)",
    # file_setattr(AT_FDCWD, path, attr, size, at_flags): every flag cleared
    "file_setattr": "libc.syscall(469, AT_FDCWD, path, ctypes.create_string_buffer(24), 24, 0)",
}

PROBE = textwrap.dedent(
    """
    import ctypes, sys
    sys.path.insert(0, {root!r})
    path, filtered, call = sys.argv[1].encode(), sys.argv[2] == "1", sys.argv[3]
    AT_FDCWD = -100
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if filtered:
        from grader.sandbox import seccomp
        seccomp.loader(False).load()
    result = eval({calls!r}[call])
    print(0 if result == 0 else ctypes.get_errno())
    """
)


def _errno(path: Path, filtered: bool, call: str) -> int:
    code = PROBE.format(root=str(ROOT), calls=CALLS)
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), str(int(filtered)), call],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return int(done.stdout.strip())


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_newer_file_changing_call_is_refused(call: str, tmp_path: Path) -> None:
    target = tmp_path / "owned"
    target.write_text("")
    bare = _errno(target, False, call)
    if bare == errno.ENOSYS:
        pytest.skip(f"this kernel has no {call}")
    assert bare != errno.EPERM  # the call reaches the file: 0, or no such attribute
    assert _errno(target, True, call) == errno.EPERM

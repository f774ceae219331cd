"""The system calls native student code may not make, as a seccomp filter built by libseccomp
(through pyseccomp): no mounts, no new namespaces, no tracing or reading other processes, no
kernel keyrings, BPF, modules or performance counters, no sockets, no System V or POSIX IPC. A
refused call fails with EPERM (ENOSYS for clone3, so that the C library falls back to clone,
whose flags are checked); system calls of another architecture (32-bit `int 0x80`, x32) kill
the process."""

from __future__ import annotations

import errno
import os
from functools import cache
from typing import Any

from grader.errors import GraderError

REFUSED = (
    # file systems and mounts: the read-only views of the host must stay read-only
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "open_tree_attr", "open_by_handle_at",
    "name_to_handle_at", "quotactl",
    "swapon", "swapoff",
    # namespaces: no way back to capabilities
    "unshare", "setns",
    # other processes: the grader's descriptors and memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    # the kernel's own facilities
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "syslog", "acct", "lookup_dcookie", "iopl", "ioperm", "fanotify_init",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "vhangup", "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the network, and the host's local services (a socket of any family)
    "socket",
    # memory no process's resident size shows, which outlives the process without bubblewrap
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
    "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
    "mq_notify", "mq_getsetattr",
)  # fmt: skip

NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
WRITE_FLAGS = {"O_WRONLY": 0o1, "O_RDWR": 0o2, "O_CREAT": 0o100, "O_TRUNC": 0o1000}
"""Opening a file with any of these is refused to a program (not to its build): it gets its
inputs and gives its outputs through pipes, and so has no file to write, on any disk."""
FILE_MAKING = (
    "creat", "mkdir", "mkdirat", "mknod", "mknodat", "link", "linkat", "symlink", "symlinkat",
    "rename", "renameat", "renameat2", "truncate", "unlink", "unlinkat", "rmdir", "chmod",
    "fchmodat", "fchmodat2", "chown", "lchown", "fchownat", "utime", "utimes", "utimensat",
    "futimesat", "setxattr", "lsetxattr", "removexattr", "lremovexattr", "setxattrat",
    "removexattrat", "file_setattr",
    # through a descriptor it has (its stderr is a file of the grader's: fallocate would fill
    # the disk past the file-size limit), or memory of a file of its own
    "fallocate", "ftruncate", "fchmod", "fchown", "fsetxattr", "fremovexattr", "memfd_create",
    "memfd_secret", "pidfd_open",
)  # fmt: skip
BY_NUMBER = {"setxattrat": 463, "removexattrat": 466, "open_tree_attr": 467, "file_setattr": 469}
"""Calls newer than libseccomp may know (2.5.4 names none of these, from Linux 6.13, 6.15 and
6.17), refused by number: from 424 on, a call has the same number on every architecture."""
TIOCSTI = 0x5412
"""The ioctl that pushes characters into a terminal's input (a TA's shell, say)."""


def _library() -> Any:
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the package, or libseccomp.so.2 under it
        raise GraderError(
            f"the sandbox needs libseccomp and pyseccomp ({exc}): apt-get install libseccomp2"
        ) from None
    return pyseccomp


def _add_each(rules: Any, action: Any, names: tuple[str, ...]) -> None:
    """A rule for each call: by name, else by number (BY_NUMBER), else none (a call this
    kernel's architecture does not have)."""
    for name in names:
        try:
            rules.add_rule(action, name)
        except (RuntimeError, ValueError, OSError):
            if name in BY_NUMBER:
                rules.add_rule(action, BY_NUMBER[name])


def _build(writes: bool) -> Any:
    seccomp = _library()
    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    _add_each(rules, refuse, REFUSED)
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # the kernel reads an ioctl's request as 32 bits: compare those alone
    rules.add_rule(refuse, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, TIOCSTI))
    if not writes:
        _add_each(rules, refuse, FILE_MAKING)
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "openat2")
        for flag in WRITE_FLAGS.values():
            rules.add_rule(refuse, "open", seccomp.Arg(1, seccomp.MASKED_EQ, flag, flag))
            rules.add_rule(refuse, "openat", seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag))
    return rules


@cache
def program(writes: bool) -> bytes:
    """The filter as a BPF program, for bubblewrap's --seccomp; `writes`: files may be written
    (a build), else not (a student's program)."""
    with os.fdopen(os.memfd_create("grader-seccomp-build", 0), "w+b") as out:
        _build(writes).export_bpf(out)
        out.seek(0)
        return out.read()


def program_fd(writes: bool) -> int:
    """A new descriptor (to be closed by the caller) holding the BPF program from its start:
    bubblewrap reads it to the end, so each bubblewrap needs its own."""
    fd = os.memfd_create("grader-seccomp", 0)
    os.write(fd, program(writes))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def loader(writes: bool) -> Any:
    """A filter to install with its `load()` on the calling process (and what it starts), with
    no new privileges: for the sandbox without bubblewrap, in the child between fork and exec."""
    return _build(writes)

"""What a failed CPU run means, in one sentence: the runtime's own error line, a sanitizer report
turned into the kernel's line and the buffer it missed, or how the program died."""

from __future__ import annotations

import re
import signal
from pathlib import Path

_ASAN_KIND = re.compile(r"ERROR: AddressSanitizer: ([\w-]+)")
_ACCESS = re.compile(r"^(READ|WRITE) of size (\d+)", re.MULTILINE)
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in .*? (\S+):(\d+)$", re.MULTILINE)
_REGION = re.compile(
    r"located (\d+) bytes (to the right|to the left|inside) of (\d+)-byte region \[(0x[0-9a-f]+),"
)
_BUFFERS = re.compile(r"GRADER-CPU-BUFFERS A=(0x[0-9a-f]+) B=(0x[0-9a-f]+) C=(0x[0-9a-f]+)")
_SHARED = re.compile(r"GRADER-CPU-BUFFERS .* SHARED=(0x[0-9a-f]+)-(0x[0-9a-f]+)")
_POISONED = re.compile(r"AddressSanitizer: use-after-poison on address (0x[0-9a-f]+)")
_OUT_OF_MEMORY = re.compile(
    r"AddressSanitizer: (hard rss limit exhausted|out of memory|allocation-size-too-big|"
    r"requested allocation size .* exceeds)|rss-limit-exceeded|malloc-limit|std::bad_alloc"
)
_UBSAN = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", re.MULTILINE)


def _kernel_frame(stderr: str) -> str:
    """`file:line` of the innermost stack frame in the student's file (not harness, not runtime)."""
    for match in _FRAME.finditer(stderr):
        path = match.group(1)
        if "cpu_runtime" in path or path.startswith("/usr/") or "grader-harness" in path:
            continue
        return f"{Path(path).name}:{match.group(2)}"
    return "an unknown line"


def _in_shared_guards(stderr: str) -> bool:
    """Whether AddressSanitizer stopped an access in the guards around the block's shared memory
    (cpu_runtime/shared.ld), which the program poisons."""
    poisoned, shared = _POISONED.search(stderr), _SHARED.search(stderr)
    if poisoned is None or shared is None:
        return False
    low, high = (int(address, 16) for address in shared.groups())
    return low <= int(poisoned.group(1), 16) < high


_SIGNAL_HINTS = {
    signal.SIGSEGV: " (an access far outside the buffers, or a stack overflow)",
    signal.SIGXFSZ: " (it wrote more output than the file-size limit allows: printf in a loop?)",
    signal.SIGXCPU: " (it used up its CPU-time limit: an endless loop?)",
    signal.SIGKILL: " (out of memory, or stopped from outside)",
}


def killed_by(returncode: int) -> signal.Signals | None:
    """The signal that ended the program: a negative return code, or, from inside the sandbox
    (bubblewrap reports its child's death as 128 + the signal), a code just above 128."""
    number = -returncode if returncode < 0 else returncode - 128 if 128 < returncode < 160 else 0
    try:
        return signal.Signals(number) if number else None
    except ValueError:
        return None


def _said(stderr: str, prefix: str) -> str | None:
    """The rest of the program's first line that starts with `prefix`, None if none does."""
    for line in stderr.splitlines():
        if line.startswith(prefix):
            return line.removeprefix(prefix)
    return None


_GPU_DEFINED = re.compile(
    r"shift exponent|is outside the range of representable values|division by zero"
)
"""UBSan's reports (either program: cpu_unit.FAST_CHECKS) of what has a result on a GPU and
another, or a crash, on x86: PTX clamps a shift count to the width, saturates a float converted
to an integer, and gives a machine-specific value for an integer division by zero."""


def unsupported(stderr: str, returncode: int = 0) -> str | None:
    """What the CPU backend cannot run alike, None if nothing: what the program said (a kernel
    that writes a built-in variable: cpu_runtime/cuda_cpu.hpp, on_fault), a UBSan report of what
    a GPU computes otherwise (_GPU_DEFINED), or SIGFPE (x86's trap on INT_MIN / -1)."""
    said = _said(stderr, "GRADER-CPU-UNSUPPORTED: ")
    if said is not None:
        return said
    ubsan = _UBSAN.search(stderr)
    if ubsan and _GPU_DEFINED.search(ubsan.group(3)):
        where = f"{Path(ubsan.group(1)).name}:{ubsan.group(2)}"
        return (
            f"{where}: {ubsan.group(3)}: undefined in C++, and a GPU gives it a result (PTX "
            "clamps a shift count, saturates a conversion to an integer, gives a value for a "
            "division by zero) that the CPU backend cannot reproduce"
        )
    if killed_by(returncode) == signal.SIGFPE:
        return (
            "an integer division of the most negative int by -1, which crashes x86 and gives a "
            "value on a GPU: the CPU backend cannot reproduce it"
        )
    return None


def explain_failure(stderr: str, returncode: int) -> str:
    """One or two sentences for a failed CPU run: the runtime's own error, a sanitizer report
    naming the kernel line and the buffer, or how the program died."""
    error = _said(stderr, "GRADER-CPU-ERROR: ")
    if error is not None:
        return error
    if _OUT_OF_MEMORY.search(stderr):
        return (
            "the kernel's program ran out of the memory it may use and was stopped "
            "(a huge allocation, or a leak in a loop?)"
        )
    asan = _ASAN_KIND.search(stderr)
    if asan:
        access = _ACCESS.search(stderr)
        what = f"a {access.group(1).lower()} of {access.group(2)} bytes" if access else "an access"
        where = _kernel_frame(stderr)
        region = _REGION.search(stderr)
        buffers = _BUFFERS.search(stderr)
        target = "outside every buffer the kernel was given"
        if region and buffers:
            name = dict(zip(buffers.groups(), "ABC", strict=True)).get(region.group(4))
            distance = int(region.group(1))
            if name and region.group(2) == "to the right":
                target = (
                    f"{'just' if distance == 0 else f'{distance} bytes'} past the end of {name}"
                )
            elif name and region.group(2) == "to the left":
                target = f"{distance} bytes before the start of {name}"
        elif _in_shared_guards(stderr):
            target = (
                "outside the block's shared memory (its __shared__ arrays, and the 1 KB a GPU "
                "reserves below them)"
            )
        elif asan.group(1) == "global-buffer-overflow":
            target = "outside a __shared__ array"
        elif asan.group(1) == "stack-buffer-overflow":
            target = "outside a local array"
        return f"{where}: {what} {target} (AddressSanitizer: {asan.group(1)})"
    ubsan = _UBSAN.search(stderr)
    if ubsan:
        where = f"{Path(ubsan.group(1)).name}:{ubsan.group(2)}"
        return f"{where}: {ubsan.group(3)} (UndefinedBehaviorSanitizer)"
    signal_ = killed_by(returncode)
    if signal_ is not None:
        return f"the kernel's program was killed by {signal_.name}{_SIGNAL_HINTS.get(signal_, '')}"
    tail = (stderr.strip().splitlines()[-1:] or [""])[0]
    shown = tail if len(tail) <= 200 else tail[:200] + "..."
    return f"the kernel's program exited with code {returncode}: {shown}"

"""A CPU program's end in words: the limit it hit inside the sandbox named, its output cut."""

from __future__ import annotations

from grader.backends.cpu_failures import explain_failure, unsupported


def test_limits_hit_inside_the_sandbox_are_named() -> None:
    # bubblewrap reports its child's death by a signal as 128 + the signal's number
    flood = explain_failure("x" * 5000, 128 + 25)
    assert flood.startswith("the kernel's program was killed by SIGXFSZ (it wrote more output")
    assert "xxx" not in flood
    assert "SIGXCPU" in explain_failure("", 128 + 24)
    assert "SIGSEGV" in explain_failure("", -11)
    assert explain_failure("last line\n", 3) == "the kernel's program exited with code 3: last line"


def test_what_a_gpu_gives_a_result_and_x86_does_not_is_left_to_a_gpu() -> None:
    # INT_MIN / -1: SIGFPE on x86 (bubblewrap reports 128 + 8), a value on a GPU
    for code in (-8, 136):
        assert "most negative int by -1" in (unsupported("", code) or "")
    report = "/tmp/w/kernel.cu:12:9: runtime error: shift exponent 32 is too large for 32-bit type"
    said = unsupported(report + "\n", 72) or ""
    assert said.startswith("kernel.cu:12: shift exponent 32 is too large") and "clamps" in said
    # what a GPU faults on too is the kernel's failure, not the CPU backend's limit
    misaligned = "kernel.cu:3:5: runtime error: load of misaligned address 0x4 for type float4"
    assert unsupported(misaligned, 72) is None and unsupported("", -11) is None

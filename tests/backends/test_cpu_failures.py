"""A CPU program's end in words: the limit it hit inside the sandbox named, its output cut."""

from __future__ import annotations

from grader.backends.cpu_failures import explain_failure


def test_limits_hit_inside_the_sandbox_are_named() -> None:
    # bubblewrap reports its child's death by a signal as 128 + the signal's number
    flood = explain_failure("x" * 5000, 128 + 25)
    assert flood.startswith("the kernel's program was killed by SIGXFSZ (it wrote more output")
    assert "xxx" not in flood
    assert "SIGXCPU" in explain_failure("", 128 + 24)
    assert "SIGSEGV" in explain_failure("", -11)
    assert explain_failure("last line\n", 3) == "the kernel's program exited with code 3: last line"

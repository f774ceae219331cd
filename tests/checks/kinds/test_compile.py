"""The compile check: a kernel that compiles leaves itself for the checks after it; one that
does not stops everything, naming its line."""

from __future__ import annotations

from grader.backends.compiler import CompiledKernel
from grader.checks.base import Halt
from grader.checks.kinds.compile import COMPILED, CompileCheck
from tests.checks.kinds.fakes import context, sent, spec_of
from tests.conftest import ROOT

SPEC = spec_of("ex1-non-square")
SOLUTION = (ROOT / "solutions/ex1-non-square/kernel.cu").read_text()


def test_a_kernel_that_compiles_passes_and_is_left_for_the_next_checks() -> None:
    made, events = context(SPEC, SOLUTION)
    assert CompileCheck().run(made) is None
    [result] = sent(events)
    assert result.status == "passed" and result.score == SPEC.compile.points
    assert result.message.startswith("compiled for sm_90")
    assert isinstance(made.evidence[COMPILED], CompiledKernel)


def test_a_kernel_that_does_not_compile_fails_on_its_line_and_stops_the_rest() -> None:
    broken = SOLUTION.replace("__syncthreads();", "__syncthreads()", 1)
    made, events = context(SPEC, broken)
    outcome = CompileCheck().run(made)
    assert outcome == Halt("not run: the kernel does not compile")
    [result] = sent(events)
    assert result.status == "failed" and result.score == 0
    assert result.message.startswith("kernel.cu:") and "error" in result.message

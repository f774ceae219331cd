"""What a batch settles before anyone is graded: that the backend asked for can run here and
that students' native code will be isolated (one line, not an error recorded for every student),
and the environment of each lane's grading children."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader import sandbox
from grader.batch.lanes import child_env
from grader.errors import GraderError

_GPU_PROBE = """
from grader.backends.gpu import GpuBackend, GpuUnavailableError
try:
    GpuBackend()
except GpuUnavailableError as exc:
    print(str(exc).splitlines()[0] if str(exc) else "no usable CUDA GPU")
"""


def _gpu_present() -> bool:
    """Whether an NVIDIA GPU's device files exist (the parent never opens a CUDA context; a child
    that falls back to the CPU backend still refuses to run without the sandbox)."""
    return Path("/dev/nvidiactl").exists() or any(Path("/dev").glob("nvidia[0-9]*"))


PROBE_TIMEOUT_S = 120.0


class GpuProbe:
    """A child asked whether a GPU is usable here (the parent never opens a CUDA context),
    started at once: its start-up (Python, CuPy, a CUDA context: a second or two) passes while
    the grading children start, instead of before them."""

    def __init__(self) -> None:
        # the package first, then whatever the caller's path holds (its installed dependencies)
        path = [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]
        self._process = subprocess.Popen(
            [sys.executable, "-c", _GPU_PROBE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)},
        )

    @functools.cached_property
    def why_not(self) -> str | None:
        """Why no GPU is usable here, or None when one is (waits for the child's answer)."""
        try:
            out, err = self._process.communicate(timeout=PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.communicate()
            return f"the GPU probe gave no answer within {PROBE_TIMEOUT_S:.0f} s"
        if self._process.returncode != 0:
            return (err.strip().splitlines() or ["the GPU probe failed"])[-1]
        return out.strip() or None

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.communicate()


@dataclass
class Preflight:
    """The lanes a batch grades on (the environment of each lane's grading children), and
    whether it can grade here, settled by `confirm` once the GPU probe has answered."""

    lanes: list[dict[str, str]]
    backend: str
    gpus: Sequence[str]
    hidden: Sequence[Path]
    unsafe_no_sandbox: bool
    probe: GpuProbe | None
    _confirmed: bool = field(default=False, init=False)

    def confirm(self) -> None:
        """Raise GraderError (one line) unless this machine can grade as asked: --backend gpu
        and --gpus need a usable GPU, and native code on the CPU needs the sandbox, which never
        shows it the hidden paths (submissions, results, solutions)."""
        if self._confirmed:
            return
        why = self.probe.why_not if self.probe is not None else "no GPU device files"
        # --gpus asks for GPUs: without one, `auto` would grade on the CPU, saying nothing
        # (--backend cpu --gpus N runs the lanes on the CPU, as asked)
        if why and (self.backend == "gpu" or (self.gpus and self.backend == "auto")):
            asked = f"--gpus {','.join(self.gpus)}" if self.gpus else "--backend gpu"
            raise GraderError(f"{asked}: not usable here: {why}")
        # auto grades on the CPU where no GPU is usable, device files or not (a driver too old)
        on_cpu = self.backend == "cpu" or (self.backend == "auto" and not self.gpus and bool(why))
        if on_cpu and not self.unsafe_no_sandbox:
            # without bubblewrap, files others can read are one line with the chmod to run
            sandbox.mode(self.hidden)
        self._confirmed = True

    def close(self) -> None:
        """End the probe if it is still running (the batch stopped before asking it)."""
        if self.probe is not None:
            self.probe.close()


def start_preflight(
    backend: str, hidden: Sequence[Path], out: Path, gpus: Sequence[str], unsafe_no_sandbox: bool
) -> Preflight:
    """The batch's lanes, one per GPU (else one), with the GPU probe started where a GPU is asked
    for or `auto` may use one (device files exist). Without device files there is no start-up
    to overlap: confirmed already (raises now)."""
    present = _gpu_present()
    asks_gpu = backend == "gpu" or (backend == "auto" and bool(gpus))
    probe = GpuProbe() if asks_gpu or (backend == "auto" and present) else None
    guarded = {
        sandbox.SANDBOX_ENV: "off" if unsafe_no_sandbox else "required",
        sandbox.HIDE_ENV: os.pathsep.join(str(p) for p in hidden),
    }
    # One lane per GPU: gradings are spread over them; each lane's lock keeps timing exclusive.
    lanes = [{**guarded, **child_env(out, gpu)} for gpu in gpus] or [guarded]
    preflight = Preflight(lanes, backend, gpus, hidden, unsafe_no_sandbox, probe)
    if probe is None or not present:  # nothing to overlap: no GPU to start children on
        preflight.confirm()
    return preflight

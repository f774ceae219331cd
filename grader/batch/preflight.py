"""What a batch settles before anyone is graded: that the backend asked for can run here and
that students' native code will be isolated (one line, not an error recorded for every student),
and the environment of each lane's grading children."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
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


def _gpu_unusable() -> str | None:
    """Why no GPU is usable here (asked of a child: the parent never opens a CUDA context), or
    None when one is."""
    # the package first, then whatever the caller's path holds (its installed dependencies)
    path = [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]
    done = subprocess.run(
        [sys.executable, "-c", _GPU_PROBE], capture_output=True, text=True, timeout=120,
        check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)},
    )  # fmt: skip
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["the GPU probe failed"])[-1]
    return done.stdout.strip() or None


def lane_envs(
    backend: str, hidden: Sequence[Path], out: Path, gpus: Sequence[str], unsafe_no_sandbox: bool
) -> list[dict[str, str]]:
    """The environment of each lane's grading children (one lane per GPU, else one), once this
    machine can grade: --backend gpu needs a usable GPU, and native code on the CPU needs the
    sandbox, which never shows it the `hidden` paths (submissions, results, solutions)."""
    # --gpus asks for GPUs: without one, `auto` would grade on the CPU, saying nothing
    # (--backend cpu --gpus N runs the lanes on the CPU, as asked)
    if backend == "gpu" or (gpus and backend == "auto"):
        why = _gpu_unusable()
        if why:
            asked = f"--gpus {','.join(gpus)}" if gpus else "--backend gpu"
            raise GraderError(f"{asked}: not usable here: {why}")
    # auto grades on the CPU where no GPU is usable, device files or not (a driver too old);
    # with --gpus the GPU was found usable above
    on_cpu = backend == "cpu" or (
        backend == "auto" and not gpus and (not _gpu_present() or _gpu_unusable() is not None)
    )
    guarded = {
        sandbox.SANDBOX_ENV: "off" if unsafe_no_sandbox else "required",
        sandbox.HIDE_ENV: os.pathsep.join(str(p) for p in hidden),
    }
    if on_cpu and not unsafe_no_sandbox:
        # without bubblewrap, files others can read are one line with the chmod to run
        sandbox.mode(hidden)
    # One lane per GPU: gradings are spread over them; each lane's lock keeps timing exclusive.
    return [{**guarded, **child_env(out, gpu)} for gpu in gpus] or [guarded]

"""Running Nsight Compute on the profiling target, and saying in one line why it could not run.

ncu starts `python -m grader.profiling.target PLAN`, which compiles and launches each kernel
once; `--clock-control none` leaves the GPU's clocks as they are (as the grader's own timing
sees them), and `--print-units base` gives bytes, nanoseconds and percent, which are scaled here."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.lifetime import die_with_parent
from grader.profiling.metrics import METRICS, KernelProfile, NcuOutputError, parse_ncu_csv
from grader.source import KernelSource, read_source
from grader.spec import BaselineSpec, ExerciseSpec

NCU_ENV = "GRADER_NCU"
_CANDIDATES = ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu")


@dataclass(frozen=True)
class ProfiledKernel:
    """A kernel to profile: its source, the __global__ function, defines and launch."""

    label: str
    source_text: str
    display_name: str
    name: str
    defines: dict[str, int]
    block: tuple[int, int]
    tile: tuple[int, int]


@dataclass(frozen=True)
class ProfileUnavailable:
    """Why there are no figures, in one line that says how to get them."""

    reason: str


def plan_kernels(
    spec: ExerciseSpec, course_root: Path, student: KernelSource | None
) -> list[ProfiledKernel]:
    """The spec's naive and tiled kernels, then the student's where one is given."""
    profile = spec.profile
    assert profile is not None

    def reference(label: str, baseline: BaselineSpec) -> ProfiledKernel:
        source = read_source(course_root / baseline.file)
        launch = baseline.launch
        return ProfiledKernel(
            label,
            source.text,
            source.display_name,
            baseline.name,
            dict(baseline.defines),
            launch.block,
            launch.tile,
        )

    kernels = [reference("naive", profile.naive), reference("tiled", profile.tiled)]
    if student is not None:
        kernel, launch = spec.kernel, spec.launch
        kernels.append(
            ProfiledKernel(
                "yours",
                student.text,
                student.display_name,
                kernel.name,
                dict(kernel.defines),
                launch.block,
                launch.tile,
            )
        )
    return kernels


def find_ncu() -> str | None:
    configured = os.environ.get(NCU_ENV)
    if configured:
        return configured if Path(configured).is_file() else None
    found = shutil.which("ncu")
    if found:
        return found
    return next((c for c in _CANDIDATES if Path(c).is_file()), None)


def ncu_command(ncu: str, kernels: list[ProfiledKernel], plan: Path) -> list[str]:
    names = "|".join(sorted({re.escape(k.name) for k in kernels}))
    return [
        ncu,
        "--csv",
        "--print-units",
        "base",
        "--clock-control",
        "none",
        "--kernel-name",
        f"regex:^({names})(\\(.*)?$",
        "--metrics",
        ",".join(m.ncu_name for m in METRICS),
        sys.executable,
        "-m",
        "grader.profiling.target",
        str(plan),
    ]


def summarise_failure(output: str, returncode: int) -> str:
    """ncu's failure in one line: what went wrong and, where known, how to enable profiling."""
    if "ERR_NVGPUCTRPERM" in output:
        return (
            "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): an "
            "administrator must allow it (driver option NVreg_RestrictProfilingToAdminUsers=0) "
            "or the grader must run with that permission"
        )
    target = re.search(r"^grader-profile: (.*)$", output, re.MULTILINE)
    if target:
        return f"the profiled program failed: {target.group(1)}"
    errors = [
        line.removeprefix("==ERROR==").strip()
        for line in output.splitlines()
        if line.startswith("==ERROR==")
    ]
    if errors:
        return f"ncu failed: {errors[0]}" + (f" (and {len(errors) - 1} more)" if errors[1:] else "")
    return f"ncu exited with code {returncode} and printed no metrics"


def run_profile(
    kernels: list[ProfiledKernel], n: int, seed: int, timeout_s: float
) -> list[KernelProfile] | ProfileUnavailable:
    """Profile each kernel once at n x n x n, in order; their figures or why there are none."""
    ncu = find_ncu()
    if ncu is None:
        return ProfileUnavailable(
            "Nsight Compute (ncu) was not found: install it (it ships with the CUDA toolkit), put "
            f"it on PATH or set {NCU_ENV}=/path/to/ncu, then run again"
        )
    with tempfile.TemporaryDirectory(prefix="grader-profile-") as scratch:
        plan = Path(scratch) / "plan.json"
        plan.write_text(
            json.dumps({"n": n, "seed": seed, "kernels": [asdict(k) for k in kernels]}),
            encoding="utf-8",
        )
        package_root = str(Path(__file__).resolve().parent.parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        try:
            process = subprocess.Popen(
                ncu_command(ncu, kernels, plan),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        except OSError as exc:
            return ProfileUnavailable(f"ncu could not be started: {exc.strerror}")
        try:
            out, err = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            # ncu and the program it profiles: the whole process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return ProfileUnavailable(f"ncu did not finish within {timeout_s:g} s and was stopped")
    stdout = out.decode("utf-8", "replace")
    output = stdout + "\n" + err.decode("utf-8", "replace")
    if process.returncode != 0:
        return ProfileUnavailable(summarise_failure(output, process.returncode))
    try:
        return parse_ncu_csv(stdout, [k.label for k in kernels])
    except NcuOutputError as exc:
        return ProfileUnavailable(f"{exc}; {summarise_failure(output, process.returncode)}")

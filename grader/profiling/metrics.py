"""The Nsight Compute metrics the course asks about, and reading them from ncu's CSV output
(`--csv --print-units base`: one row per kernel and metric, values with thousands separators)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    key: str
    """The name used in answers files and report figures."""
    ncu_name: str
    """Nsight Compute's metric name."""
    label: str
    unit: str
    """The unit answers and tables use."""
    scale: float
    """ncu's base unit (bytes, ns, %) times this gives `unit`."""


METRICS: tuple[Metric, ...] = (
    Metric("duration_us", "gpu__time_duration.sum", "duration", "us", 1e-3),
    Metric("dram_read_mb", "dram__bytes_read.sum", "DRAM bytes read", "MB", 1e-6),
    Metric("l2_mb", "lts__t_bytes.sum", "L2 bytes (all traffic)", "MB", 1e-6),
    Metric(
        "l1_global_load_mb",
        "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
        "L1 global-load bytes",
        "MB",
        1e-6,
    ),
    Metric("shared_mb", "smsp__sass_data_bytes_mem_shared.sum", "shared-memory bytes", "MB", 1e-6),
    Metric(
        "sm_throughput_pct",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "SM throughput, of peak",
        "%",
        1.0,
    ),
    Metric(
        "occupancy_pct",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "achieved occupancy",
        "%",
        1.0,
    ),
)
BY_KEY = {metric.key: metric for metric in METRICS}
PROFILE_CHECK = "ncu profile"
"""The check that carries the figures (`naive.dram_read_mb`, ..., and `n`)."""
LEVELS = {"dram": "dram_read_mb", "l2": "l2_mb", "l1": "l1_global_load_mb"}
"""The memory levels a question may name, and the metric that measures traffic at each."""


@dataclass(frozen=True)
class KernelProfile:
    """One profiled kernel: its label (naive, tiled, yours), ncu's name for it, its figures."""

    label: str
    kernel_name: str
    values: dict[str, float]
    """Metric key -> value in the metric's unit."""


class NcuOutputError(Exception):
    """ncu's output does not hold what was asked for; the message says what is missing."""


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def parse_ncu_csv(text: str, labels: list[str]) -> list[KernelProfile]:
    """The profiled kernels, in launch order, labelled in order; ncu's own log lines (`==PROF==`,
    warnings) before the table are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        raise NcuOutputError("ncu printed no metric table")
    rows: dict[str, dict[str, str]] = {}
    names: dict[str, str] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        launch = row.get("ID") or ""
        if not launch.isdigit() or row.get("Metric Name") is None:
            continue
        names[launch] = (row.get("Kernel Name") or "").split("(")[0]
        rows.setdefault(launch, {})[row["Metric Name"]] = row.get("Metric Value") or ""
    if len(rows) != len(labels):
        raise NcuOutputError(f"ncu reported {len(rows)} kernel launches, expected {len(labels)}")
    profiles = []
    for label, launch in zip(labels, sorted(rows, key=int), strict=True):
        values: dict[str, float] = {}
        for metric in METRICS:
            raw = rows[launch].get(metric.ncu_name)
            if raw is None:
                raise NcuOutputError(f"ncu did not report {metric.ncu_name} for {names[launch]}")
            try:
                values[metric.key] = _number(raw) * metric.scale
            except ValueError:
                raise NcuOutputError(
                    f"ncu reported {metric.ncu_name} = {raw!r} for {names[launch]}: not a number"
                ) from None
        profiles.append(KernelProfile(label, names[launch], values))
    return profiles


def to_figures(profiles: list[KernelProfile]) -> dict[str, float]:
    """Flattened for a CheckResult: `naive.dram_read_mb` -> 8.39, ..."""
    return {f"{p.label}.{key}": value for p in profiles for key, value in p.values.items()}


def from_figures(figures: dict[str, float]) -> dict[str, dict[str, float]]:
    """The inverse of to_figures: label -> metric key -> value (other figures are ignored)."""
    out: dict[str, dict[str, float]] = {}
    for name, value in figures.items():
        label, _, key = name.partition(".")
        if key in BY_KEY:
            out.setdefault(label, {})[key] = value
    return out

"""Reading ncu's CSV: the H200 run recorded on 2026-12-02 (tests/data/ncu-h200-n1024.csv)."""

from __future__ import annotations

import pytest

from grader.profiling.metrics import (
    METRICS,
    NcuOutputError,
    from_figures,
    parse_ncu_csv,
    to_figures,
)
from tests.conftest import ROOT

RECORDED = (ROOT / "tests/data/ncu-h200-n1024.csv").read_text()


def test_the_recorded_run_gives_every_figure_in_the_courses_units() -> None:
    naive, tiled = parse_ncu_csv(RECORDED, ["naive", "tiled"])
    assert (naive.label, naive.kernel_name) == ("naive", "matmul_naive")
    assert (tiled.label, tiled.kernel_name) == ("tiled", "matmul_tiled")
    assert set(naive.values) == {m.key for m in METRICS}
    # the facts the exercise rests on: same DRAM bytes (all fits in L2), 8x fewer L1 loads
    assert naive.values["dram_read_mb"] == pytest.approx(8.394496)
    assert tiled.values["dram_read_mb"] == pytest.approx(8.39296)
    assert naive.values["l1_global_load_mb"] == pytest.approx(4294.967296)
    assert tiled.values["l1_global_load_mb"] == pytest.approx(536.870912)
    assert naive.values["duration_us"] == pytest.approx(427.424)
    assert tiled.values["sm_throughput_pct"] == pytest.approx(69.51)
    assert naive.values["shared_mb"] == 0.0


def test_a_launch_count_other_than_planned_is_an_error() -> None:
    with pytest.raises(NcuOutputError, match="reported 2 kernel launches, expected 3"):
        parse_ncu_csv(RECORDED, ["naive", "tiled", "yours"])


def test_a_missing_metric_is_named() -> None:
    text = "\n".join(line for line in RECORDED.splitlines() if "lts__t_bytes.sum" not in line)
    with pytest.raises(NcuOutputError, match=r"did not report lts__t_bytes\.sum for matmul_naive"):
        parse_ncu_csv(text, ["naive", "tiled"])


def test_output_without_a_table_is_an_error() -> None:
    with pytest.raises(NcuOutputError, match="no metric table"):
        parse_ncu_csv("==PROF== Connected to process 1\n==ERROR== something\n", ["naive"])


def test_figures_round_trip_through_a_check_result() -> None:
    profiles = parse_ncu_csv(RECORDED, ["naive", "tiled"])
    figures = {**to_figures(profiles), "n": 1024.0, "wall_s": 3.0}
    assert from_figures(figures) == {p.label: p.values for p in profiles}

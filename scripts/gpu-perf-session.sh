#!/usr/bin/env bash
# Performance grading on a lent GPU, in one go: GPU tests, validate, calibration, benchmarks.
#   bash .device/on-device.sh bash scripts/gpu-perf-session.sh
set -uo pipefail
out="${OUT:-gpu-out}"
mkdir -p "$out"
export COLUMNS=120
{
  echo "== pytest -m gpu"; python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tail -15
  echo "== validate"; TIMEFORMAT="validate took %R s"; time grader validate --seed 2026 2>&1 | tail -3
  echo "== calibrate"; grader calibrate ex4 --runs 5 --write
  cp exercises/ex4-register-tiling/spec.yaml "$out/ex4-spec.yaml"
  echo "== check ex4 (solution, calibrated)"; grader check ex4 --file solutions/ex4-register-tiling/kernel.cu --seed 5
  echo "== check ex4 slow_correct"; grader check ex4 --file solutions/ex4-register-tiling/wrong/slow_correct.cu --seed 5 | tail -12
  echo "== repeatability"; python3 benchmarks/perf_repeatability.py 10 --write
  echo "== cost"; python3 benchmarks/perf_cost.py --write
  cp benchmarks/results/perf_*.txt "$out/"
} 2>&1 | tee "$out/gpu-perf-session.log"

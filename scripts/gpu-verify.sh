#!/usr/bin/env bash
# The GPU verification of the grader, in two parts that each fit one device call (10 minutes):
#   bash .device/on-device.sh bash scripts/gpu-verify.sh part1   # GPU tests, validate, ex2, ex3
#   bash .device/on-device.sh bash scripts/gpu-verify.sh part2   # benchmarks (results committed)
#   bash .device/on-device.sh bash scripts/gpu-verify.sh all     # both in one call, most needed first
#     (STUDENTS=40 by default there, to fit 10 minutes; each step's output lands in $OUT at once)
# Logs go to $OUT (or ./gpu-out): at most a few files, since the device returns 8.
set -uo pipefail
out="${OUT:-gpu-out}"
mkdir -p "$out"
export COLUMNS=120 PYTHONUNBUFFERED=1
case "${1:-part1}" in
  all)
    export GRADER_CACHE_DIR=/tmp/grader-cache
    {
      echo "== pytest -m gpu"
      python3 -m pytest -m gpu -q -p no:cacheprovider \
        --deselect tests/test_gpu.py::test_validate_proves_every_verdict 2>&1 | tail -25
    } > "$out/gpu-tests.txt" 2>&1
    { echo "== cost"; python3 benchmarks/perf_cost.py --write
      echo "== repeatability"; python3 benchmarks/perf_repeatability.py 10 --write
      cp benchmarks/results/perf_cost.txt benchmarks/results/perf_repeatability.txt "$out/"
    } > "$out/perf.log" 2>&1
    {
      echo "== grader check ex2 (solution)"; grader check ex2 --file solutions/ex2-tile-sweep/kernel.cu --seed 5; echo "exit $?"
      for v in keeps_result tf32_when_large skip_some_terms_when_large zeroes_inputs_when_large work_first_launches; do
        echo "== grader check ex4 $v"
        grader check ex4 --file "solutions/ex4-register-tiling/wrong/$v.cu" --seed 5 --json \
          | python3 -c "import json,sys; c=json.load(sys.stdin)['checks'][-1]; print(c['status'], c['message'])"
      done
      echo "== grader check ex4 (solution)"; grader check ex4 --file solutions/ex4-register-tiling/kernel.cu --seed 5; echo "exit $?"
    } > "$out/checks.log" 2>&1
    python3 benchmarks/batch_throughput.py --students "${STUDENTS:-40}" --jobs 8 --write > "$out/batch.log" 2>&1
    cp benchmarks/results/batch_throughput.txt "$out/"
    { TIMEFORMAT="validate took %R s"; time grader validate --seed 2026; echo "exit $?"; } > "$out/validate.txt" 2>&1
    ;;
  part1)
    {
      echo "== doctor"; grader doctor
      echo "== pytest -m gpu (validate runs below, through the CLI)"
      python3 -m pytest -m gpu -q -p no:cacheprovider \
        --deselect tests/test_gpu.py::test_validate_proves_every_verdict 2>&1 | tail -25
      echo "== validate"; TIMEFORMAT="validate took %R s"
      time grader validate --seed 2026 > "$out/validate.txt" 2>&1; echo "exit $?"
      tail -3 "$out/validate.txt"
    } 2>&1 | tee "$out/part1.log"
    {
      echo "== grader check ex3 (solution)"; grader check ex3 --file solutions/ex3-profiling/kernel.cu --seed 5; echo "exit $?"
      echo "== grader profile ex3 (solution)"; grader profile ex3 --file solutions/ex3-profiling/kernel.cu; echo "exit $?"
      echo "== grader check ex3 (wrong answers: tutorial claims)"
      mkdir -p /tmp/ex3w && cp solutions/ex3-profiling/kernel.cu /tmp/ex3w/ \
        && cp solutions/ex3-profiling/wrong/answers_tutorial_claims.yaml /tmp/ex3w/answers.yaml
      grader check ex3 --file /tmp/ex3w/kernel.cu --seed 5; echo "exit $?"
      echo "== grader check ex2 (solution)"; grader check ex2 --file solutions/ex2-tile-sweep/kernel.cu --seed 5; echo "exit $?"
      echo "== grader check ex4 spin_when_timed"; grader check ex4 --file solutions/ex4-register-tiling/wrong/spin_when_timed.cu --seed 5 | tail -8
      echo "== grader check ex4 misaligned_vector_load"; grader check ex4 --file solutions/ex4-register-tiling/wrong/misaligned_vector_load.cu --seed 5 | tail -12
      for v in keeps_result tf32_when_large skip_some_terms_when_large zeroes_inputs_when_large work_first_launches; do
        echo "== grader check ex4 $v"
        grader check ex4 --file "solutions/ex4-register-tiling/wrong/$v.cu" --seed 5 --json \
          | python3 -c "import json,sys; c=json.load(sys.stdin)['checks'][-1]; print(c['status'], c['message'])"
      done
      echo "== grader check ex4 (solution)"; grader check ex4 --file solutions/ex4-register-tiling/kernel.cu --seed 5; echo "exit $?"
    } 2>&1 | tee "$out/checks.log" | tail -5
    ;;
  part2)
    {
      echo "== cost"; python3 benchmarks/perf_cost.py --write
      echo "== repeatability"; python3 benchmarks/perf_repeatability.py 10 --write
      echo "== batch throughput"; python3 benchmarks/batch_throughput.py --students 100 --jobs 8 --write
      cp benchmarks/results/perf_cost.txt benchmarks/results/perf_repeatability.txt \
        benchmarks/results/batch_throughput.txt "$out/"
    } 2>&1 | tee "$out/part2.log"
    ;;
esac

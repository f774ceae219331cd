#!/usr/bin/env bash
# Everything worth running on a lent GPU in one go (see ../shared/GPU.md):
#   bash .device/on-device.sh bash scripts/gpu-session.sh
# Logs go to $OUT (or ./gpu-out); the last lines printed are the summary.
set -uo pipefail
out="${OUT:-gpu-out}"
mkdir -p "$out"
export GRADER_CACHE_DIR=/tmp/grader-cache COLUMNS=110
{
  echo "== doctor"; grader doctor
  echo "== pytest -m gpu"; python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1
  echo "== validate"; TIMEFORMAT="validate took %R s"; time grader validate --seed 2026
  for ex in ex1 ex4; do echo "== check $ex (stub)"; grader check "$ex" --seed 11; echo "exit $?"; done
  for ex in ex1-non-square ex4-register-tiling; do
    echo "== check $ex (solution)"; grader check "$ex" --file "solutions/$ex/kernel.cu"; echo "exit $?"
  done
  for v in solutions/ex1-non-square/wrong/*.cu; do
    echo "== check ex1 --file $v"; grader check ex1 --file "$v" --seed 11; echo "exit $?"
  done
  for v in solutions/ex4-register-tiling/wrong/*.cu; do
    echo "== check ex4 --file $v"; grader check ex4 --file "$v" --seed 11; echo "exit $?"
  done
} 2>&1 | tee "$out/gpu-session.log"
grep -E "^(== |exit |validate took|[0-9]+ (passed|failed)|[0-9]+ as expected|.*hint:)" "$out/gpu-session.log" | tail -40

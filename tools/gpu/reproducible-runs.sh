#!/usr/bin/env bash
# The cost of femint run --reproducible (doc/performance.md), on the GPU host from the repository
# root:   . .gpu-runtime/env.sh && tools/gpu/reproducible-runs.sh OUTDIR
# Prisms, single precision, every worker: box:16,16,8 of orders 1-4 and box:12,12,6 of orders
# 4-6, 5 runs to calibrate StarPU's models, then 7 runs with and 7 without --reproducible in
# turn; OUTDIR/reproducible.txt lists each run's task stage (tasks_s of the JSON).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
stage() { femint run "$@" --json 2>/dev/null | sed -n 's/.*"tasks_s":\([0-9.e+-]*\).*/\1/p'; }
for case in "box:16,16,8 1-4" "box:12,12,6 4-6"; do
  set -- $case
  args=(--mesh "$1" --order "$2" --precision single)
  for k in 1 2 3 4 5; do stage "${args[@]}" >/dev/null; done
  for k in 1 2 3 4 5 6 7; do
    echo "$1 $2 default $(stage "${args[@]}")"
    echo "$1 $2 reproducible $(stage "${args[@]}" --reproducible)"
  done
done >"$out/reproducible.txt"
echo "wrote $out/reproducible.txt"

#!/usr/bin/env bash
# The matrix-free apply on the GPU host's CPU cores, alone and beside the GPU
# (doc/performance-cpu-apply.md), from the repository root on the GPU host (see
# ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/cpu-apply-runs.sh OUTDIR
# femint bp on box 24^3: bp1, bp3 and bp5 of orders 2, 4 and 7 on the CPU workers alone (the
# median of 5 applications, a solve of 20 iterations); then bp3 of orders 2 and 4 with every
# worker and with the GPU alone (3 solves of 100 iterations). Each run has 120 s; its line gives
# the exit status and the process's wall seconds.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
femint info | head -n 3 >"$out/cpu-apply-info.txt"
run() {
  local s r
  s=$(date +%s)
  timeout 120 femint bp --mesh box:24,24,24 "$@" >"$out/bp.txt" 2>&1
  r=$?
  echo "$* rc=$r $(($(date +%s) - s))s"
  tail -n +2 "$out/bp.txt" | tee -a "$out/cpu-apply.txt"
}
for pb in bp1 bp3 bp5; do
  run --problem "$pb" --where cpu --order 2,4,7 --runs 5 --solves 1 --iterations 20
done
for w in any opencl; do
  run --problem bp3 --where "$w" --order 2,4 --runs 5 --solves 3 --iterations 100
done

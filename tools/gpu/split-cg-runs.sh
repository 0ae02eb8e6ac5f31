#!/usr/bin/env bash
# The matrix-free apply and CG split over the GPUs of one host (doc/performance-parallel.md, raw
# output in doc/perf/multi-gpu/split-cg.txt), from the repository root on the multi-GPU host
# (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/split-cg-runs.sh OUTDIR [ORDERS] [DEVICES]
# femint bp of bp5 on box 48^3 for each order (default 3 and 5) on 1, 2 and 4 devices
# (--devices N): the apply tasks' median of 1 application and the median of 3 CG solves of 100
# iterations. Each run has 60 s (SPLIT_LIMIT seconds); its line gives the exit status and the
# process's wall seconds. SPLIT_MESH=box:NX,NY,NZ takes another box; SPLIT_TIMELINE=1 keeps the
# last solve's tasks of each run in OUTDIR/timeline-pP-devN.csv (femint bp --timeline).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
orders=${2:-3 5}
devices=${3:-1 2 4}
femint info | head -n 3 >"$out/split-info.txt"
for p in $orders; do
  for n in $devices; do
    s=$(date +%s)
    timeout "${SPLIT_LIMIT:-60}" femint bp --problem bp5 --mesh "${SPLIT_MESH:-box:48,48,48}" \
      --where opencl --runs 1 --solves 3 \
      --iterations 100 --order "$p" --devices "$n" \
      ${SPLIT_TIMELINE:+--timeline "$out/timeline-p$p-dev$n.png"} >"$out/bp.txt" \
      2>"$out/bp-p$p-dev$n.err"
    r=$?
    echo "p=$p dev$n rc=$r $(($(date +%s) - s))s $(tail -n 1 "$out/bp.txt")" | tee -a "$out/split-cg.txt"
  done
done

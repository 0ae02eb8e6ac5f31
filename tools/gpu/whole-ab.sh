#!/usr/bin/env bash
# The whole stage of a later assembly as an application runs it, for two builds alternately, on
# the GPU host (see ../shared/gpu/README.md; build and pack both, the older one under another
# name):
#   . .gpu-runtime/env.sh && tools/gpu/whole-ab.sh OUTDIR [OLD-PROGRAM]   (default femint-old)
# Prisms of one order (ORDERS, default 2..7) in PRECISIONS (default single double): `femint bench
# --operator --no-cpu --overlap --runs 5 --json` (the phases not waited for; total_median_s the
# median of 5 later assemblies) into OUTDIR/BUILD-PREC-pP.json, after two calibration assemblies
# of each build. Both builds need --overlap and --no-cpu.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
ab_setup "${2:-femint-old}" # each build in a StarPU home of its own (sp)
for b in femint "$old"; do # the bus calibrated, the programs built
  sp "$b" run --mesh box:16,16,8 --order 1-4 --precision single >/dev/null 2>&1
done
declare -A mesh=([2]=32,32,16 [3]=24,24,12 [4]=16,16,8 [5]=14,14,7 [6]=12,12,6 [7]=10,10,5)
for prec in ${PRECISIONS:-single double}; do
  for p in ${ORDERS:-2 3 4 5 6 7}; do
    args=(bench --operator --no-cpu --overlap --precision "$prec" --mesh "box:${mesh[$p]}"
      --order "$p" --json)
    for b in femint "$old"; do sp "$b" "${args[@]}" --runs 2 >/dev/null 2>&1; done
    for b in femint "$old"; do sp "$b" "${args[@]}" --runs 5 >"$out/$b-$prec-p$p.json" 2>/dev/null; done
  done
done
echo "wrote $out/*-p*.json"

#!/usr/bin/env bash
# Fresh `femint run` processes of two builds, alternately, on the GPU host (see
# ../shared/gpu/README.md; build and pack both, the older one under another name):
#   . .gpu-runtime/env.sh && tools/gpu/fresh-ab.sh OUTDIR [OLD-PROGRAM]   (default femint-old)
# The prisms of box 16x16x8, orders 1-4, single, and the Maxwell matrices of the curved
# tetrahedral box 17^3 at order 3, 5 processes of each build with FEMINT_TRACE=1: the JSON of
# each run is OUTDIR/BUILD-CASE-N.json, its trace OUTDIR/BUILD-CASE-N.err. A first run of each
# calibrates the bus and builds the programs (not kept).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
ab_setup "${2:-femint-old}" # each build in a StarPU home of its own (sp)
prism=(--mesh box:16,16,8 --order 1-4 --precision single --json)
tet=(--element tet --mesh box:17,17,17 --curved 0.1 --order 3 --json)
for b in femint "$old"; do
  sp "$b" run "${prism[@]}" >/dev/null 2>&1
  sp "$b" run "${tet[@]}" >/dev/null 2>&1
done
for case in prism tet; do
  if [ $case = prism ]; then args=("${prism[@]}"); else args=("${tet[@]}"); fi
  for i in 1 2 3 4 5; do
    for b in femint "$old"; do
      FEMINT_TRACE=1 sp "$b" run "${args[@]}" >"$out/$b-$case-$i.json" 2>"$out/$b-$case-$i.err"
    done
  done
done
echo "wrote $out/*-{prism,tet}-*.json"

#!/usr/bin/env bash
# The geometry of H1 cells mapped on the device (GEMM) against Jacobian terms prepared on the
# host, on the GPU host (see ../shared/gpu/README.md); two builds packed together:
#   . .gpu-runtime/env.sh && tools/gpu/geometry-runs.sh OUTDIR/new
#   . .gpu-runtime/env.sh && FEMINT=femint-old tools/gpu/geometry-runs.sh OUTDIR/old
# The stage sweep of the prisms (prep and kernel per element, GEMM, orders 1-7, single), the
# operator's phases of a later assembly (prisms orders 1-4 and 4-6, quadrilaterals 100x100
# orders 1-7, H1 tetrahedra box 17^3 order 3; single), and three fresh `femint run` of the
# prisms, box 16x16x8, orders 1-4, single; with COEXEC=1 also bench --coexec, with WHOLE=1
# the whole stage per order.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
femint run --mesh box:16,16,8 --order 1-4 --precision single >/dev/null 2>&1 # calibrate the bus
femint bench --order 1-7 --variant gemm --precision single --csv "$out/sweep.csv" \
  >"$out/sweep.txt" 2>&1
op() { # op NAME femint-bench-arguments...
  name=$1
  shift
  femint bench --operator --precision single --runs 5 "$@" >"$out/op-$name.txt" 2>&1
}
op prism-low --mesh box:16,16,8 --order 1-4
op prism-high --mesh box:12,12,8 --order 4-6
op quad --element quad --mesh rect:100,100 --order 1-7
op tet-h1 --element tet --space h1 --mesh box:17,17,17 --order 3
for i in 1 2 3; do
  femint run --mesh box:16,16,8 --order 1-4 --precision single --json >"$out/run-$i.json" 2>&1
done
# with COEXEC=1: co-execution, integration and assembly (the default path), medians of 5
if [ "${COEXEC:-0}" = 1 ]; then
  femint bench --coexec --mesh box:16,16,8 --order 1-4 --precision single --runs 12 \
    >"$out/coexec-low.txt" 2>&1
  femint bench --coexec --mesh box:12,12,8 --order 4-6 --precision single --runs 12 \
    >"$out/coexec-high.txt" 2>&1
fi
# with WHOLE=1: the whole stage of a later assembly per order (prisms p = 2..7, single and
# double, medians of 5: bench --operator's t_med_s), for the bus bound of the CSR values
if [ "${WHOLE:-0}" = 1 ]; then
  for prec in single double; do
    for spec in 2:32,32,16 3:24,24,12 4:16,16,8 5:14,14,7 6:12,12,6 7:10,10,5; do
      femint bench --operator --precision $prec --runs 5 --mesh "box:${spec#*:}" \
        --order "${spec%%:*}" --json >"$out/whole-$prec-p${spec%%:*}.json" 2>/dev/null
    done
  done
fi

#!/usr/bin/env bash
# The quadrilateral measurements of doc/performance.md (seed 003's Figures 4-5: 10,000 elements,
# p = 1..7), on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/quad-runs.sh OUTDIR
# femint bench on 10,000 plane stress elements per order, full and upper-half storage, both
# precisions, the GEMM kernel against the CPU codelet on the host's cores; then a mixed-order
# assembly of quadrilaterals on every worker.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
{ femint info
  femint bench --element quad --order 1-7 --cells 10000 --precision both --csv "$out/quad.csv"
  femint bench --element quad --order 1-7 --cells 10000 --precision both --symmetric \
    --csv "$out/quad-symmetric.csv"
  for k in 1 2 3; do
    femint run --element quad --mesh rect:100,100 --order 1-7 --precision single --quiet
  done
  femint run --element quad --mesh rect:100,100 --order 1-7 --precision single
  femint run --element quad --mesh annulus:40,100 --order 2-7 --precision double
} > "$out/quad-log.txt" 2>&1

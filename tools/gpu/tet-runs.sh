#!/usr/bin/env bash
# The tetrahedral Maxwell measurements of doc/performance.md (seed 004's Table 2 and Figure 3),
# on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/tet-runs.sh OUTDIR
# About 30,000 curved tetrahedra (box:17,17,17 gives 29,478; the seed's TEST2 has 28,806 and
# 455,916 unknowns at order 3): the phases of the assembly of T and S on the CPU workers alone
# and with the GPU, orders 1-3, double and single; then the summary of femint run.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
mesh=(--mesh box:17,17,17 --curved 0.1)
{ femint info
  femint bench --element tet --order 3 "${mesh[@]}" --runs 3
  femint bench --element tet --order 3 "${mesh[@]}" --runs 3 --precision single
  femint bench --element tet --order 2 "${mesh[@]}" --runs 3
  femint bench --element tet --order 1 "${mesh[@]}" --runs 3
  femint run --element tet --order 3 "${mesh[@]}"
  femint run --element tet --order 3 "${mesh[@]}" --phases --json
} >"$out/tet-log.txt" 2>&1

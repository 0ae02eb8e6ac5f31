#!/usr/bin/env bash
# The measurements of doc/performance.md's operator section, on the GPU host (see
# ../shared/gpu/README.md), from the repository root:
#   . .gpu-runtime/env.sh && tools/gpu/operator-runs.sh OUTDIR
# To compare two builds on the same machine, pack both (the older program copied to another
# name, say femint-old, and named to pack-runtime beside src/femint) and run the script once per
# program, each with its own StarPU home:
#   FEMINT=femint-old STARPU_HOME=/tmp/sp-old tools/gpu/operator-runs.sh OUTDIR/before
# What it measures: per element, kernel and whole stage (GEMM, orders 1-7, both precisions) on
# prisms and on 10,000 quadrilaterals; the phases of the assembly of T and S on the curved
# tetrahedral box 17^3 (order 3 double and single, order 2); the first assembly of T and S in a
# fresh process, twice; the task stage of femint run (prisms box 16x16x8 orders 1-4,
# quadrilaterals 100x100 orders 1-7, single precision, 4 runs each: calibration then the best).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
tet=(--element tet --mesh box:17,17,17 --curved 0.1)
{ femint info
  femint bench --order 1-7 --variant gemm --precision both --csv "$out/prism.csv" --quiet
  femint bench --element quad --order 1-7 --cells 10000 --precision both --csv "$out/quad.csv" \
    --quiet
  femint bench "${tet[@]}" --order 3 --runs 5
  femint bench "${tet[@]}" --order 3 --runs 5 --precision single
  femint bench "${tet[@]}" --order 2 --runs 5
  for k in 1 2; do femint run "${tet[@]}" --order 3 --phases --json; done
  for k in 1 2 3 4; do
    femint run --mesh box:16,16,8 --order 1-4 --precision single --json
  done
  for k in 1 2 3 4; do
    femint run --element quad --mesh rect:100,100 --order 1-7 --precision single --json
  done
} >"$out/log.txt" 2>&1
echo "wrote $out/log.txt, $out/prism.csv, $out/quad.csv"

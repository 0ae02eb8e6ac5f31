#!/usr/bin/env bash
# The measurements of doc/performance.md, on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/perf-runs.sh OUTDIR [all|gemm]
# all: every order, variant and precision (femint bench); gemm: the GEMM variant and the CPU,
# full and upper-half storage. Then the co-execution efficiency with its timeline, the default
# run, the kernel plans and the variants chosen by measurement (log.txt).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
variants=${2:-gemm}
[ "$variants" = all ] || variants=gemm
log=$out/log.txt
{ femint info; femint bench --order 1-7 --variant $variants --precision both --csv "$out/bench.csv"
  [ "${FEMINT_SYMMETRIC_SWEEP:-1}" = 1 ] &&
    femint bench --order 1-7 --variant gemm --precision both --symmetric --no-cpu \
      --csv "$out/bench-symmetric.csv"
  femint bench --coexec --mesh box:16,16,8 --order 1-4 --precision single --runs 12 \
    --timeline "$out/coexec.png"
  femint run --variant auto
  for p in 2 4 7; do femint plan --order $p --precision single; done
  cat "${STARPU_HOME:-/tmp/starpu-home}/.starpu/femint-variants"
} > "$log" 2>&1

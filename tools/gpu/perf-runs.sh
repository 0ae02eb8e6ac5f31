#!/usr/bin/env bash
# The measurements of doc/performance.md, on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/perf-runs.sh OUTDIR sweep|rest
# sweep: every order, variant and precision (femint bench); rest: symmetric storage, the
# co-execution efficiency with its timeline, the default run and the kernel plans.
set -u
out=${1:-out}
mkdir -p "$out"
case ${2:-sweep} in
  sweep)
    femint info > "$out/info.txt" 2>&1
    femint bench --order 1-7 --variant all --precision both --csv "$out/bench.csv" \
      > "$out/bench.txt" 2> "$out/bench.err"
    ;;
  rest)
    femint bench --order 1-7 --variant gemm --precision both --symmetric --no-cpu \
      --csv "$out/bench-symmetric.csv" > "$out/bench-symmetric.txt" 2> "$out/bench-symmetric.err"
    femint bench --coexec --mesh box:16,16,8 --order 1-4 --precision single --runs 12 \
      --timeline "$out/coexec.png" > "$out/coexec.txt" 2>&1
    femint run > "$out/default.txt" 2>&1
    for p in 2 4 7; do femint plan --order $p --precision single; done > "$out/plan.txt" 2>&1
    cp "${STARPU_HOME:-/tmp/starpu-home}/.starpu/femint-variants" "$out/" 2>/dev/null
    ;;
esac

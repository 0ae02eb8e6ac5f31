#!/usr/bin/env bash
# Co-execution on the GPU host: . .gpu-runtime/env.sh && tools/gpu/coexec-run.sh OUTDIR
set -u
out=${1:-out}
mkdir -p "$out"
{ femint bench --coexec --mesh box:16,16,8 --order 1-4 --precision single --runs 12 \
    --timeline "$out/coexec.png"
  femint bench --coexec --mesh box:12,12,8 --order 4-6 --precision single --runs 8 \
    --timeline "$out/coexec-high.png"
} > "$out/log.txt" 2>&1

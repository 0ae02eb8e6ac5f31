#!/usr/bin/env bash
# Co-execution on the GPU host: . .gpu-runtime/env.sh && tools/gpu/coexec-run.sh OUTDIR
# Each mesh twice: integration and assembly (femint_assemble), and integration alone
# (femint_integrate, --no-assembly).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
{ for stage in "" --no-assembly; do
    tag=${stage:+-integrate}
    femint bench --coexec --mesh box:16,16,8 --order 1-4 --precision single --runs 12 $stage \
      --timeline "$out/coexec$tag.png"
    femint bench --coexec --mesh box:12,12,8 --order 4-6 --precision single --runs 12 $stage \
      --timeline "$out/coexec-high$tag.png"
  done
} > "$out/log.txt" 2>&1

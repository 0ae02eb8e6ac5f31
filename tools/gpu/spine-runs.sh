#!/usr/bin/env bash
# Runs femint on the GPU host (see ../shared/gpu/README.md): worker discovery, then the default
# job and larger meshes on CPU only, GPU only and both, twice each so that the models calibrate.
# Usage on the GPU host, from the repository root: . .gpu-runtime/env.sh && tools/gpu/spine-runs.sh OUTDIR
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
femint info > "$out/info.txt" 2>&1
nvidia-smi -L >> "$out/info.txt" 2>&1
femint run > "$out/default.txt" 2>&1
for prec in single double; do
  for where in opencl cpu any any any; do
    femint run --mesh box:16,16,12 --order 1-4 --precision $prec --where $where --json \
      >> "$out/mixed-$prec.jsonl" 2>> "$out/errors.txt"
  done
done
for p in 2 4 6; do
  femint run --mesh box:12,12,8 --order $p --precision single --where opencl --json \
    >> "$out/uniform.jsonl" 2>> "$out/errors.txt"
  femint run --mesh box:12,12,8 --order $p --precision single --where opencl --json \
    >> "$out/uniform.jsonl" 2>> "$out/errors.txt"
done

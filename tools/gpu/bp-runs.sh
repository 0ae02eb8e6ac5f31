#!/usr/bin/env bash
# The first matrix-free measurements of doc/performance.md (seed 001's bake-off problems), on the
# GPU host (see ../shared/gpu/README.md), from the repository root:
#   . .gpu-runtime/env.sh && tools/gpu/bp-runs.sh OUTDIR
# femint bp on 24^3 hexahedra, orders 1-7: bp3 on the OpenCL device, on the CPU workers and on
# every worker; bp1 on the device; bp3 of order 3 on 48^3 hexahedra.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
{ femint info | head -n 3
  for w in opencl cpu any; do femint bp --problem bp3 --order 1-7 --mesh box:24,24,24 --where $w; done
  femint bp --problem bp1 --order 1-7 --mesh box:24,24,24 --where opencl
  femint bp --problem bp3 --order 3 --mesh box:48,48,48 --where opencl
} >"$out/bp-log.txt" 2>&1
echo "wrote $out/bp-log.txt"

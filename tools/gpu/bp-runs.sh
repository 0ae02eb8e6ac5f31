#!/usr/bin/env bash
# The matrix-free measurements of doc/performance.md (seed 001's bake-off problems), on the GPU
# host (see ../shared/gpu/README.md), from the repository root:
#   . .gpu-runtime/env.sh && tools/gpu/bp-runs.sh OUTDIR [SET]
# femint bp (applications on vectors that stay on the device, and CG solves to 1e-8) on 32^3
# hexahedra: bp3, bp5 and bp1 of orders 1-8 on the OpenCL device, bp3 on every worker and on the
# CPU workers alone, bp5 with Jacobi, and bp5, bp3, bp1 with the geometry made at each point from
# the vertices; the element kernels alone (bk1, bk3, bk5: --kernel-only); linear elasticity (CG
# and the kernel alone); single precision (bk5, bk1, bp5). Each sweep writes its own log (a
# cut-off run keeps the finished ones). SET picks one sweep by name (opencl, any, cpu, jacobi,
# vertices, kernel, elasticity, single).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
set=${2:-all}
sweep() {
  name=$1
  shift
  [ "$set" = all ] || [ "$set" = "${name%%-*}" ] || return 0
  echo "== femint bp $*" >"$out/bp-$name.txt"
  femint bp "$@" >>"$out/bp-$name.txt" 2>&1
}
femint info | head -n 3 >"$out/bp-info.txt"
for p in bp3 bp5 bp1; do sweep opencl-$p --problem $p --order 1-8 --mesh box:32,32,32 --where opencl; done
sweep any-bp3 --problem bp3 --order 2-7 --mesh box:32,32,32 --where any
sweep cpu-bp3 --problem bp3 --order 2,4,7 --mesh box:24,24,24 --where cpu
sweep jacobi-bp5 --problem bp5 --order 3,7 --mesh box:32,32,32 --where opencl --jacobi
for p in bp5 bp3 bp1; do
  sweep vertices-$p --problem $p --order 1-8 --mesh box:32,32,32 --where opencl --geometry vertices
done
for p in bp5 bp1 bp3; do
  sweep kernel-$p --problem $p --order 1-8 --mesh box:32,32,32 --where opencl --kernel-only
done
sweep elasticity-opencl --problem elasticity --order 1-6 --mesh box:32,32,32 --where opencl --solves 1
sweep elasticity-kernel --problem elasticity --order 1-6 --mesh box:32,32,32 --where opencl \
  --kernel-only
for p in bp5 bp1; do
  sweep single-kernel-$p --problem $p --order 1-8 --mesh box:32,32,32 --where opencl --kernel-only \
    --precision single
done
sweep single-bp5 --problem bp5 --order 1-8 --mesh box:32,32,32 --where opencl --precision single
echo "wrote $out/bp-*.txt"

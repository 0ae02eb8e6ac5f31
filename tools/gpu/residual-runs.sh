#!/usr/bin/env bash
# The residual measurements of doc/performance.md (seed 002's pointwise residuals), on the GPU
# host (see ../shared/gpu/README.md), from the repository root:
#   . .gpu-runtime/env.sh && tools/gpu/residual-runs.sh OUTDIR [SET]
# femint residual --bench (the median of 10 evaluations on vectors that stay on the device, in
# double precision) on the OpenCL device: Poisson on triangles and tetrahedra of orders 1-3 with
# no auxiliary field, a field and per-cell values, linear elasticity, and, on every worker, a
# smaller run that checks the CPU and the device against each other. One CSV row per run in
# OUTDIR/residual-SET.csv, the text in OUTDIR/residual-SET.txt. SET: tri, tet, elasticity,
# single (the P1 runs in single precision), large (33.5 million triangles), table2 (seed 002's
# Table 2, femint residual --table2: cells per batch x batches per work-group, and its chart),
# any, kernels and kernels2 (the two OpenCL kernels, --kernel transposed and cellwise, side by
# side; kernels3 for elasticity at orders 2 and 3), cpu (the CPU workers alone, for T_ideal
# against the device), jacobian (femint residual --jacobian: the Jacobian's median time, on the
# device and on the CPU workers), breakdown (not in all: the residual kernel's and the sum's
# times apart).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
set=${2:-all}
run() {
  name=$1
  shift
  [ "$set" = all ] || [ "$set" = "$name" ] || return 0
  echo "== femint residual $*" >>"$out/residual-$name.txt"
  femint residual "$@" --csv "$out/row.csv" >>"$out/residual-$name.txt" 2>&1
  if [ -f "$out/row.csv" ]; then
    [ -f "$out/residual-$name.csv" ] || head -n 1 "$out/row.csv" >"$out/residual-$name.csv"
    tail -n +2 "$out/row.csv" >>"$out/residual-$name.csv"
    rm -f "$out/row.csv"
  fi
}
for aux in none field cell; do
  run tri --element tri --order 1 --mesh rect:2048,2048 --aux $aux --where opencl --bench
done
run tri --element tri --order 2 --mesh rect:1448,1448 --where opencl --bench
run tri --element tri --order 3 --mesh rect:1024,1024 --where opencl --bench
for aux in none field; do
  run tet --element tet --order 1 --mesh box:96,96,96 --aux $aux --where opencl --bench
done
run tet --element tet --order 2 --mesh box:64,64,64 --where opencl --bench
run tet --element tet --order 3 --mesh box:40,40,40 --where opencl --bench
run elasticity --element tri --order 1 --mesh rect:2048,2048 --pointwise gallery:elasticity \
  --where opencl --bench
run elasticity --element tet --order 1 --mesh box:80,80,80 --pointwise gallery:elasticity \
  --where opencl --bench
for prec in single double; do
  run single --element tri --order 1 --mesh rect:2048,2048 --aux field --where opencl --bench \
    --precision $prec
  run single --element tet --order 1 --mesh box:96,96,96 --aux field --where opencl --bench \
    --precision $prec
  run single --element tri --order 1 --mesh rect:2048,2048 --pointwise gallery:elasticity \
    --where opencl --bench --precision $prec
  run single --element tet --order 1 --mesh box:80,80,80 --pointwise gallery:elasticity \
    --where opencl --bench --precision $prec
  run large --element tri --order 1 --mesh rect:4096,4096 --aux field --where opencl --bench \
    --precision $prec
done
for args in "--element tri --order 1 --mesh rect:2048,2048" "--element tet --order 1 --mesh box:96,96,96"; do
  shape=${args:10:3}
  run table2 $args --aux field --where opencl --bench --table2 --plot "$out/residual-table2-$shape.png"
done
run any --element tri --order 2 --mesh rect:256,256 --aux field --where any --bench
run any --element tet --order 1 --mesh box:32,32,32 --pointwise gallery:bratu --where any --bench
for kernel in transposed cellwise; do
  run kernels --element tri --order 1 --mesh rect:2048,2048 --aux field --where opencl --bench \
    --kernel $kernel
  run kernels --element tri --order 1 --mesh rect:2048,2048 --where opencl --bench --kernel $kernel
  run kernels --element tet --order 1 --mesh box:96,96,96 --where opencl --bench --kernel $kernel
  run kernels --element tet --order 1 --mesh box:96,96,96 --aux field --where opencl --bench \
    --kernel $kernel
  run kernels --element tri --order 2 --mesh rect:1448,1448 --where opencl --bench --kernel $kernel
  run kernels --element tet --order 2 --mesh box:64,64,64 --where opencl --bench --kernel $kernel
  run kernels2 --element tri --order 3 --mesh rect:1024,1024 --where opencl --bench --kernel $kernel
  run kernels2 --element tet --order 3 --mesh box:40,40,40 --where opencl --bench --kernel $kernel
  run kernels2 --element tri --order 1 --mesh rect:2048,2048 --pointwise gallery:elasticity \
    --where opencl --bench --kernel $kernel
  run kernels2 --element tet --order 1 --mesh box:80,80,80 --pointwise gallery:elasticity \
    --where opencl --bench --kernel $kernel
  run kernels2 --element tri --order 1 --mesh rect:2048,2048 --aux field --where opencl --bench \
    --precision single --kernel $kernel
  run kernels2 --element tet --order 1 --mesh box:96,96,96 --aux field --where opencl --bench \
    --precision single --kernel $kernel
done
for kernel in transposed cellwise; do
  for order in 2 3; do
    run kernels3 --element tri --order $order --mesh rect:1024,1024 --pointwise gallery:elasticity \
      --where opencl --bench --kernel $kernel
    run kernels3 --element tet --order $order --mesh box:40,40,40 --pointwise gallery:elasticity \
      --where opencl --bench --kernel $kernel
  done
done
run cpu --element tri --order 1 --mesh rect:2048,2048 --aux field --where cpu --bench
run cpu --element tet --order 1 --mesh box:96,96,96 --aux field --where cpu --bench
for where in opencl cpu; do
  run jacobian --element tri --order 1 --mesh rect:2048,2048 --aux field --where $where --bench \
    --runs 5 --jacobian
  run jacobian --element tet --order 1 --mesh box:96,96,96 --aux field --where $where --bench \
    --runs 5 --jacobian
  run jacobian --element tet --order 1 --mesh box:64,64,64 --pointwise gallery:elasticity \
    --where $where --bench --runs 5 --jacobian
  run jacobian --element tet --order 2 --mesh box:48,48,48 --pointwise gallery:plaplace \
    --where $where --bench --runs 5 --jacobian
  run jacobian --element tet --order 1 --mesh box:96,96,96 --aux field --where $where --bench \
    --runs 5 --jacobian --precision single
done
# breakdown: each codelet's mean time (the residual kernel, femint_residual_v*; the sum into F,
# femint_vector_v1) from StarPU's history models, every evaluation recorded (STARPU_CALIBRATE=1),
# a fresh model folder per case, kept under OUTDIR/breakdown/CASE; the text in
# OUTDIR/residual-breakdown.txt
breakdown() {
  local case=$1 models="${STARPU_HOME:-$HOME}/.starpu/sampling/codelets"
  shift
  [ "$set" = breakdown ] || return 0
  rm -rf "$models"
  echo "== $case: femint residual $*" >>"$out/residual-breakdown.txt"
  STARPU_CALIBRATE=1 femint residual "$@" --where opencl --bench --runs 20 \
    >>"$out/residual-breakdown.txt" 2>&1
  mkdir -p "$out/breakdown/$case" && cp -r "$models" "$out/breakdown/$case/"
}
breakdown tetnone --element tet --order 1 --mesh box:96,96,96 --aux none
breakdown tetfield --element tet --order 1 --mesh box:96,96,96 --aux field
breakdown tetfields --element tet --order 1 --mesh box:96,96,96 --aux field --precision single
breakdown elast --element tet --order 1 --mesh box:80,80,80 --pointwise gallery:elasticity
breakdown tet2 --element tet --order 2 --mesh box:64,64,64
breakdown trifields --element tri --order 1 --mesh rect:2048,2048 --aux field --precision single
breakdown trifield --element tri --order 1 --mesh rect:2048,2048 --aux field
breakdown trinone --element tri --order 1 --mesh rect:2048,2048 --aux none

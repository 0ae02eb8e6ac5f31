#!/usr/bin/env bash
# Where the first assembly of a fresh process spends its time (doc/performance.md, "The first
# assembly of a process"), on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/first-call.sh OUTDIR
# Fresh processes of femint run (3 of each case) with FEMINT_TRACE=1 (the steps of femint_init,
# the mesh, the space, the operator and the assembly, in seconds from the start), StarPU's bus
# statistics and the task timeline (CSV): the Maxwell matrices of the curved tetrahedral box 17^3
# at order 3 (the OpenCL worker alone, every worker, and with StarPU's own clean-buffer policy,
# STARPU_MINIMUM_CLEAN_BUFFERS=5 and STARPU_TARGET_CLEAN_BUFFERS=10, which femint turns off), and
# the prisms of box 16x16x8, orders 1-4, single, by rows and by the default path (auto: the COO
# sums on a GPU); then
# bench (the first assembly against later ones in one process; the prisms and quadrilaterals
# by rows and by COO); then the prisms' OpenCL programs compiled against loaded from the cache. The JSON of each run is
# OUTDIR/first-CASE-N.json, its stderr (trace, statistics) OUTDIR/first-CASE-N.err.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
tet=(--element tet --mesh box:17,17,17 --curved 0.1 --order 3 --json)
prism=(--mesh box:16,16,8 --order 1-4 --precision single --json)
femint info >"$out/first-info.txt" 2>&1
# the first runs calibrate the bus and build the programs (the driver caches them): not compared
femint run "${tet[@]}" >/dev/null 2>&1
femint run "${prism[@]}" --assembly rows >/dev/null 2>&1
femint run "${prism[@]}" >/dev/null 2>&1
one() { # one NAME femint-run-arguments...
  name=$1
  shift
  FEMINT_TRACE=1 STARPU_BUS_STATS=1 femint run "$@" --timeline "$out/first-$name.png" \
    >"$out/first-$name.json" 2>"$out/first-$name.err"
}
for i in 1 2 3; do
  one "tet-opencl-$i" "${tet[@]}" --where opencl
  one "tet-any-$i" "${tet[@]}"
  STARPU_MINIMUM_CLEAN_BUFFERS=5 STARPU_TARGET_CLEAN_BUFFERS=10 one "tet-starpu-clean-$i" \
    "${tet[@]}" --where opencl
  one "prism-rows-$i" "${prism[@]}" --assembly rows
  one "prism-auto-$i" "${prism[@]}"
done
femint bench --element tet --mesh box:17,17,17 --curved 0.1 --order 3 --runs 3 \
  >"$out/first-bench-tet.txt" 2>&1
# the two assembly paths of H1 in one process: the first assembly and the best of later ones
for a in rows coo; do
  femint bench --operator --mesh box:16,16,8 --order 1-4 --precision single --assembly $a \
    --runs 5 >"$out/first-bench-prism-$a.txt" 2>&1
  femint bench --operator --element quad --mesh rect:100,100 --order 1-7 --precision single \
    --assembly $a --runs 5 >"$out/first-bench-quad-$a.txt" 2>&1
done
# the programs: compiled (a fresh cache folder of femint's, the driver's own cache off) against
# loaded from femint's cache folder, in fresh processes
for i in 1 2 3; do
  CUDA_CACHE_DISABLE=1 FEMINT_CACHE_DIR="$out/programs-$i" femint run "${prism[@]}" \
    >"$out/first-programs-compiled-$i.json" 2>&1
  CUDA_CACHE_DISABLE=1 FEMINT_CACHE_DIR="$out/programs-$i" femint run "${prism[@]}" \
    >"$out/first-programs-loaded-$i.json" 2>&1
  rm -rf "$out/programs-$i"
done

#!/usr/bin/env bash
# Where the first assembly of a fresh process spends its time (doc/performance.md, "The first
# assembly of a process"), on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/first-call.sh OUTDIR
# Fresh processes of femint run (3 of each case) with FEMINT_TRACE=1 (the steps of femint_init,
# the mesh, the space, the operator and the assembly, in seconds from the start), StarPU's bus
# statistics and the task timeline (CSV): the Maxwell matrices of the curved tetrahedral box 17^3
# at order 3 (the OpenCL worker alone, every worker, and with StarPU's own clean-buffer policy,
# STARPU_MINIMUM_CLEAN_BUFFERS=5 and STARPU_TARGET_CLEAN_BUFFERS=10, which femint turns off), and
# the prisms of box 16x16x8, orders 1-4, single, by rows and by COO sums on the device; then
# bench (the first assembly against later ones in one process). The JSON of each run is
# OUTDIR/first-CASE-N.json, its stderr (trace, statistics) OUTDIR/first-CASE-N.err.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
tet=(--element tet --mesh box:17,17,17 --curved 0.1 --order 3 --json)
prism=(--mesh box:16,16,8 --order 1-4 --precision single --json)
femint info >"$out/first-info.txt" 2>&1
# the first runs calibrate the bus and build the programs (the driver caches them): not compared
femint run "${tet[@]}" >/dev/null 2>&1
femint run "${prism[@]}" >/dev/null 2>&1
femint run "${prism[@]}" --assembly coo >/dev/null 2>&1
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
  one "prism-rows-$i" "${prism[@]}"
  one "prism-coo-$i" "${prism[@]}" --assembly coo
done
femint bench --element tet --mesh box:17,17,17 --curved 0.1 --order 3 --runs 3 \
  >"$out/first-bench-tet.txt" 2>&1

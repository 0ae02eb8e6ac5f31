#!/usr/bin/env bash
# The bake-off kernels alone (bk1, bk3, bk5: femint bp --kernel-only) on meshes sized per order,
# so that every order moves 10^6 to 3 x 10^7 DOFs (doc/performance.md), from the repository root
# on the GPU host (see ../shared/gpu/README.md):
#   . .gpu-runtime/env.sh && tools/gpu/bk-runs.sh OUTDIR [LABEL] [PROBLEMS]
# Orders 1-2 on box 96^3, 3-4 on 64^3, 5-8 on 40^3 (double precision, the OpenCL device, the
# median of 10 passes). LABEL names the log (bk-LABEL.txt; default "runs"); with
# FEMINT_KERNEL_DIR set, femint reads its kernels' sources from there, so that two kernels are
# compared in one session. Each femint run has 300 s.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_setup "${1:-out}"
label=${2:-runs}
problems=${3:-bp5 bp1 bp3}
log="$out/bk-$label.txt"
femint info | head -n 3 >"$log"
for pb in $problems; do
  for set in 1-2:96 3-4:64 5-8:40; do
    n=${set#*:}
    echo "== femint bp --problem $pb --order ${set%:*} --mesh box:$n,$n,$n --kernel-only" >>"$log"
    timeout 300 femint bp --problem "$pb" --order "${set%:*}" --mesh "box:$n,$n,$n" --where opencl \
      --kernel-only --runs 10 --solves 0 2>&1 | tail -n +2 >>"$log"
  done
done
cat "$log"

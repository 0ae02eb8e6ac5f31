#!/usr/bin/env bash
# The measurements of doc/performance.md on a host of several GPUs (section "Several GPUs"): each
# pipeline with 1, 2 and 4 OpenCL devices in one process (STARPU_NOPENCL=N; the first N devices),
# the CPU workers beside them. From the repository root of the GPU host:
#   tools/gpu/multi-runs.sh OUTDIR [SET]
# after `. .gpu-runtime/env.sh` (or with .gpu-runtime.tar.xz of `tools/gpu/mpi-runs.sh pack`,
# which this script unpacks). SET, one of:
#   prism     bench --coexec (T_cpu, T_gpu with N devices, T_both) on prisms, orders 1-4 and 4-6
#   integrate the same, orders 1-4, without the assembly (the element matrices to main memory)
#   tet       bench's operator phases of the Maxwell matrices (box 17^3 and 26^3, curved, p = 3)
#   bp        femint bp: BP5 applications and 100 CG iterations on 48^3 hexahedra, p = 3 and 7
#   residual  femint residual --bench: P1 Poisson with a field on 8.4 M triangles, P1 elasticity
#             on 1.6 M tetrahedra
#   split     the COO assembly split over the N devices (--devices N): the Maxwell matrices
#             (box 17^3 and 26^3) and the prisms (orders 1-4 and 4-6, --coexec)
#   all       every set (default)
# Each set writes OUTDIR/multi-SET.txt, each run headed by its command and N.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
if [ ! -d .gpu-runtime ] && [ -f .gpu-runtime.tar.xz ]; then tar xJf .gpu-runtime.tar.xz || exit 1; fi
if ! command -v femint >/dev/null && [ -f .gpu-runtime/env.sh ]; then . .gpu-runtime/env.sh; fi
. tools/gpu/common.sh
gpu_setup "${1:-out}"
set=${2:-all}
ndev=$(femint info | sed -n 's/.* \([0-9][0-9]*\) OpenCL workers*.*/\1/p')
counts=()
for n in 1 2 4; do [ "$n" -le "${ndev:-0}" ] && counts+=("$n"); done
[ ${#counts[@]} -gt 0 ] || { echo "multi-runs.sh: no OpenCL device" >&2; exit 1; }
each() { # each NAME femint-arguments...: the run with 1, 2 and 4 devices
  name=$1
  shift
  [ "$set" = all ] || [ "$set" = "$name" ] || return 0
  for n in "${counts[@]}"; do
    echo "== N=$n: femint $*" >>"$out/multi-$name.txt"
    STARPU_NOPENCL=$n femint "$@" >>"$out/multi-$name.txt" 2>&1
  done
}
each_split() { # each_split femint-arguments...: with 1, 2 and 4 devices, the COO split over them
  [ "$set" = all ] || [ "$set" = split ] || return 0
  for n in "${counts[@]}"; do
    echo "== N=$n: femint $* --devices $n" >>"$out/multi-split.txt"
    STARPU_NOPENCL=$n femint "$@" --devices "$n" >>"$out/multi-split.txt" 2>&1
  done
}
femint info >"$out/multi-info.txt" 2>&1
each_split bench --element tet --order 3 --mesh box:17,17,17 --curved 0.1 --runs 5
each_split bench --element tet --order 3 --mesh box:26,26,26 --curved 0.1 --runs 5
each_split bench --coexec --mesh box:32,32,16 --order 1-4 --precision single --runs 6
each_split bench --coexec --mesh box:24,24,12 --order 4-6 --precision single --runs 6
each prism bench --coexec --mesh box:32,32,16 --order 1-4 --precision single --runs 6
each prism bench --coexec --mesh box:24,24,12 --order 4-6 --precision single --runs 6
each integrate bench --coexec --mesh box:32,32,16 --order 1-4 --precision single --runs 6 \
  --no-assembly
each tet bench --element tet --order 3 --mesh box:17,17,17 --curved 0.1 --runs 3
each tet bench --element tet --order 3 --mesh box:26,26,26 --curved 0.1 --runs 3
each bp bp --problem bp5 --order 3,7 --mesh box:48,48,48 --where opencl --runs 5 --solves 3 \
  --iterations 100
each residual residual --element tri --order 1 --mesh rect:2048,2048 --aux field --where opencl \
  --bench
each residual residual --element tet --order 1 --mesh box:64,64,64 --pointwise gallery:elasticity \
  --where opencl --bench
echo "wrote $out/multi-*.txt"

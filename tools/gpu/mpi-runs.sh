#!/usr/bin/env bash
# The MPI measurement of doc/performance.md on the GPU host: the assembly stage of
# examples/petsc_elasticity (femint_operator_integrate into PETSc's COO values, or into
# MatSetValues with -setvalues, then MatSetValuesCOO and MatAssembly) on 1 rank and on 4 ranks
# sharing the GPU (one box, replicated or distributed mesh), and its weak scaling (the same cells
# on each rank).
#
# Two steps:
#   tools/gpu/mpi-runs.sh pack         on the build machine (Debian, configured with MPI and
#                                      PETSc, after make): ../shared/gpu/pack-runtime of femint
#                                      and the example, less Open MPI's own libraries (the
#                                      host's Open MPI 4.1 provides them, and its mpirun must
#                                      load its own), compressed into .gpu-runtime.tar.xz
#                                      (about 36 MB; the folder itself is about 135 MB, mostly
#                                      PETSc's dependencies)
#   tools/gpu/mpi-runs.sh run OUTDIR   on the GPU host, from the repository root: unpacks the
#                                      archive if needed, checks that every library resolves,
#                                      and writes OUTDIR/log.txt
#   tools/gpu/mpi-runs.sh gpus OUTDIR  the same on a host of several GPUs: one rank per GPU
#                                      (OUTDIR/gpus.txt)
#
# What could break, and how it shows: the example is linked against Debian's Open MPI 4.1.4;
# on the host it runs with the host's libmpi.so.40 (Open MPI 4.1.6, the same ABI). A host without
# mpirun, or a library that does not resolve, stops the run with a message; a mismatch of Open
# MPI's internal libraries shows as an error at MPI_Init in log.txt.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { echo "mpi-runs: $*" >&2; }

pack() {
  set -e
  [ -x examples/petsc_elasticity ] && [ -x examples/petsc_bps ] ||
    { say "examples/petsc_elasticity and petsc_bps are not built (configure with MPI and PETSc, then make)"; exit 1; }
  ../shared/gpu/pack-runtime src/femint examples/petsc_elasticity examples/petsc_bps
  rm -f .gpu-runtime/lib/libmpi.so.* .gpu-runtime/lib/libopen-rte.so.* \
    .gpu-runtime/lib/libopen-pal.so.*
  # the example finds the uninstalled libfemint only through its libtool wrapper: pack it too
  cp -L src/.libs/libfemint.so.0 .gpu-runtime/lib/
  tar cJf .gpu-runtime.tar.xz .gpu-runtime
  say "wrote .gpu-runtime.tar.xz ($(du -h .gpu-runtime.tar.xz | cut -f1)); carry it to the GPU host"
}

# The host's Open MPI library folder, after the packed libraries on the loader path (where the
# system's loader does not already search it).
host_mpi() {
  local mpirun dir
  mpirun=$(command -v mpirun) || { say "no mpirun on the PATH of the GPU host"; exit 1; }
  dir=$(dirname "$(readlink -f "$mpirun")")/..
  for d in "$dir/lib" "$dir/lib/x86_64-linux-gnu" "$dir/lib/x86_64-linux-gnu/openmpi/lib"; do
    [ -e "$d/libmpi.so.40" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
  done
  return 0
}

# The packed programs and the host's Open MPI on the paths, every library resolved.
prepare() {
  [ -d .gpu-runtime ] || tar xJf .gpu-runtime.tar.xz ||
    { say "no .gpu-runtime (run 'tools/gpu/mpi-runs.sh pack' on the build machine)"; exit 1; }
  # shellcheck disable=SC1091
  . .gpu-runtime/env.sh
  host_mpi
  local missing
  missing=$(ldd .gpu-runtime/bin/petsc_elasticity .gpu-runtime/bin/petsc_bps | grep "not found")
  [ -z "$missing" ] || { say "libraries not found on this host:"; echo "$missing" >&2; exit 1; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

run() {
  local out=${1:-out}
  prepare
  mkdir -p "$out"
  local ex=.gpu-runtime/bin/petsc_elasticity
  # Each rank gets 4 cores (mpirun's PE=4), one of them for its OpenCL driver; every rank takes
  # the one GPU (local rank modulo the devices). The example's operator builds the OpenCL programs
  # before the first of 3 assemblies, which calibrates StarPU's models; the fastest counts.
  local bind=(--map-by slot:PE=4 --bind-to core)
  {
    mpirun --version | head -n 1
    mpirun -n 4 "${bind[@]}" femint info --local-rank env
    # The same box on 1 rank and on 4 ranks sharing the GPU (replicated: every rank holds the
    # whole mesh; distributed: each rank only its slab), then CPU workers only.
    for p in 2 3; do
      n=$([ $p = 2 ] && echo 24 || echo 16)
      for np in 1 4; do
        echo "== strong, order $p, $np ranks, box ${n}^3, the GPU and CPU workers"
        mpirun -n $np "${bind[@]}" $ex -n "$n" -order $p -repeat 3 -no_solve -timing
        echo "== strong, order $p, $np ranks, box ${n}^3, distributed mesh"
        mpirun -n $np "${bind[@]}" $ex -n "$n" -order $p -repeat 3 -no_solve -timing -distributed
        echo "== strong, order $p, $np ranks, box ${n}^3, CPU workers only"
        mpirun -n $np "${bind[@]}" $ex -n "$n" -order $p -repeat 3 -no_solve -timing -where cpu
      done
    done
    for np in 1 4; do
      echo "== strong, order 2, $np ranks, box 24^3, MatSetValues instead of the COO interface"
      mpirun -n $np "${bind[@]}" $ex -n 24 -order 2 -repeat 3 -no_solve -timing -setvalues
    done
    # Weak scaling: N x N x N*R hexahedra, the same cells on each rank.
    for np in 1 2 4; do
      echo "== weak, order 2, $np ranks, box 16x16x$((16 * np))"
      mpirun -n $np "${bind[@]}" $ex -weak -n 16 -order 2 -repeat 3 -no_solve -timing
    done
    echo "== the same solution on 1 and 4 ranks with the GPU, replicated and distributed"
    mpirun -n 1 "${bind[@]}" $ex -n 8 -order 3
    mpirun -n 4 "${bind[@]}" $ex -n 8 -order 3
    mpirun -n 4 "${bind[@]}" $ex -n 8 -order 3 -distributed
  } >"$out/log.txt" 2>&1
  say "wrote $out/log.txt"
}

# One rank per GPU on a host of several (each rank takes the device of its local rank): 1, 2 and 4
# ranks, each bound to 8 cores, on the assembly of petsc_elasticity (distributed mesh) and on
# BP5 by PETSc's CG through petsc_bps (100 iterations). Writes OUTDIR/gpus.txt.
gpus() {
  local out=${1:-out}
  prepare
  mkdir -p "$out"
  local bind=(--map-by slot:PE=8 --bind-to core)
  {
    femint info | head -n 1
    for np in 1 2 4; do
      echo "== $np ranks, one GPU each: petsc_elasticity, order 2, box 32^3, distributed mesh"
      mpirun -n $np "${bind[@]}" .gpu-runtime/bin/petsc_elasticity -n 32 -order 2 -repeat 3 \
        -no_solve -timing -distributed
    done
    for p in 3 7; do
      for np in 1 2 4; do
        echo "== $np ranks, one GPU each: petsc_bps bp5, order $p, box 48^3, 100 CG iterations"
        mpirun -n $np "${bind[@]}" .gpu-runtime/bin/petsc_bps -problem bp5 -n 48 -order $p \
          -where opencl -ksp_max_it 100 -ksp_norm_type none
      done
    done
  } >"$out/gpus.txt" 2>&1
  say "wrote $out/gpus.txt"
}

case ${1:-} in
pack) pack ;;
run) shift; run "$@" ;;
gpus) shift; gpus "$@" ;;
*) echo "usage: $0 pack | run OUTDIR | gpus OUTDIR" >&2; exit 2 ;;
esac

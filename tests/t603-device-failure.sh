#!/bin/sh
# Test: failures of an OpenCL device or of a kernel's build leave the work to the other workers.
# FEMINT_FAULT_DEVICE=0 makes every launch on device 0 fail, as on a lost device or one out of
# memory: each verb (prisms assembled by rows and by the COO sums on the device, the Maxwell
# matrices of H(curl) tetrahedra, the matrix-free CG of BP3) warns, leaves the device out and ends
# with the results of the CPU workers; with OpenCL workers alone it fails naming the device, or,
# with a second device, the work (the pointwise residual, the CG, the COO sums, the COO assembly
# split over both) moves there. A kernel that does not build (a broken copy in FEMINT_KERNEL_DIR) is named
# with its file and line, and the CPU workers integrate; FEMINT_KERNEL_DIR and FEMINT_FAULT_DEVICE
# that make no sense are refused before StarPU starts. FEMINT_DEVICE_MEMORY, too small for the COO
# pattern, sends the sums to main memory (COO asked for) or the assembly to the rows (auto), with
# a warning.

FEMINT=${FEMINT:-./src/femint}
if [ ! -x "$FEMINT" ]; then
  echo "Bail out! femint program not found at '$FEMINT'"
  exit 1
fi
case $FEMINT in /*) ;; *) FEMINT=$(pwd)/$FEMINT ;; esac
tests_dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t603.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export FEMINT_CACHE_DIR="$tmp/cache" STARPU_OPENCL_ON_CPUS=1 STARPU_SILENT=1
. "$tests_dir/tap.sh"

if ! "$FEMINT" info >info.txt 2>&1 || ! grep -q " [1-9][0-9]* OpenCL worker" info.txt; then
  echo "1..0 # SKIP no OpenCL worker here"
  exit 0
fi
echo "1..19"

# femint with device 0 failing; the eager scheduler gives the device tasks before it fails
faulty() { FEMINT_FAULT_DEVICE=0 STARPU_SCHED=eager "$FEMINT" "$@"; }
# Whether FILE holds the warnings of a device that failed and of the work done again.
warned() { grep -q "OpenCL device 0 .* failed" "$1" && grep -q "the work is done again" "$1"; }

# Each verb in a fresh process: verified, the matrix of a CPU-only run, the warnings.
for case in "rows:--element prism --mesh box:4,4,2 --order 2 --assembly rows" \
  "COO sums:--element prism --mesh box:4,4,2 --order 2 --assembly coo" \
  "Maxwell:--element tet --space hcurl --mesh box:3,3,3 --order 2"; do
  name=${case%%:*} args=${case#*:}
  # shellcheck disable=SC2086 # split the options on purpose
  "$FEMINT" run $args --where cpu --output cpu.mtx >cpu.out 2>&1
  [ "$name" = rows ] && cp cpu.mtx cpu-prism.mtx
  # shellcheck disable=SC2086
  faulty run $args --output fault.mtx >fault.out 2>fault.err
  st=$?
  [ $st -eq 0 ] && grep -q "^result *PASS" fault.out && warned fault.err &&
    same_matrix fault.mtx cpu.mtx
  r=$?
  ok $r "$name: device 0 fails, the run is verified with the CPU-only matrix and a warning"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag fault.err; diag fault.out; }
done

faulty run --mesh box:3,3,2 --order 2 --where opencl >only.out 2>only.err
st=$?
[ $st -eq 1 ] && grep -q "OpenCL launch on device 0 failed" only.err
r=$?
ok $r "OpenCL workers alone (--where opencl): exit 1 naming the device"
[ $r -eq 0 ] || { echo "# exit status $st"; diag only.err; }

# BP3 CG: converged (a solve that the failure interrupted starts again from its last iterate).
# The CPU workers may take every apply task of a run when the machine is loaded, so that the
# device never fails and the run says nothing: such a run is tried again (three times at most).
converged() { grep -q '"converged":1' "$1"; }
for try in 1 2 3; do
  faulty bp --problem bp3 --order 3 --mesh box:3,3,3 --runs 1 --solves 1 --json >bp.json 2>bp.err
  st=$?
  grep -q "OpenCL device 0 .* failed" bp.err && break
done
[ $st -eq 0 ] && warned bp.err && converged bp.json
r=$?
ok $r "BP3 CG: device 0 fails, the solve converges on the CPU workers"
[ $r -eq 0 ] || { echo "# exit status $st"; diag bp.err bp.json; }

# Two devices (PoCL's CPU device twice), OpenCL workers alone: the work summed on device 0 (the
# residual, the BP3 solve, the COO sums) moves to device 1
if STARPU_NOPENCL=2 POCL_DEVICES="pthread pthread" "$FEMINT" info 2>&1 | grep -q "2 OpenCL workers"; then
  two() { STARPU_NOPENCL=2 POCL_DEVICES="pthread pthread" faulty "$@" --where opencl; }
  two residual --element tri --mesh rect:16,16 >res.out 2>res.err
  st=$?
  [ $st -eq 0 ] && grep -q "^result *PASS" res.out && warned res.err
  r=$?
  ok $r "two devices, residual: device 0 fails, device 1 evaluates it and the checks pass"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag res.err res.out; }
  two bp --problem bp3 --order 3 --mesh box:3,3,3 --runs 1 --solves 1 --json >bp2.json 2>bp2.err
  st=$?
  [ $st -eq 0 ] && warned bp2.err && converged bp2.json
  r=$?
  ok $r "two devices, BP3 CG: device 1 solves it"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag bp2.err bp2.json; }
  two bp --problem bp5 --order 3 --mesh box:3,3,3 --runs 1 --solves 1 --devices 2 --json \
    >bp3.json 2>bp3.err
  st=$?
  [ $st -eq 0 ] && warned bp3.err && converged bp3.json
  r=$?
  ok $r "two devices, BP5 split over both (--devices 2): device 0 fails, device 1 solves it"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag bp3.err bp3.json; }
  two run --mesh box:4,4,2 --order 2 --assembly coo --output two.mtx >two.out 2>two.err
  st=$?
  [ $st -eq 0 ] && grep -q "^result *PASS" two.out && warned two.err && same_matrix two.mtx cpu-prism.mtx
  r=$?
  ok $r "two devices, COO sums: device 1 assembles the matrix of the CPU workers"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag two.err; }
  # the COO assembly split over both: device 0 fails in its part's pattern, while device 1 waits
  # for its columns' place; the warning names device 0's own failure
  two run --mesh box:4,4,2 --order 2 --assembly coo --devices 2 --output split.mtx >split.out \
    2>split.err
  st=$?
  [ $st -eq 0 ] && grep -q "^result *PASS" split.out && warned split.err &&
    grep -q "device 0 .*FEMINT_FAULT_DEVICE=0" split.err && same_matrix split.mtx cpu-prism.mtx
  r=$?
  ok $r "two devices, the COO assembly split over both (--devices 2): device 0 fails, named; device 1 assembles the matrix of the CPU workers"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag split.err; }
  # devices too small for the pattern: the sums go to main memory, with a warning
  FEMINT_DEVICE_MEMORY=1e6 STARPU_NOPENCL=2 POCL_DEVICES="pthread pthread" "$FEMINT" run \
    --mesh box:4,4,2 --order 2 --assembly coo --devices 2 --output small.mtx >small.out \
    2>small.err
  st=$?
  [ $st -eq 0 ] && grep -q "^result *PASS" small.out && grep -q "^assembly *coo in main memory" small.out &&
    grep -q "on each of 2 device(s) (0.0 GB each): summed in main memory instead" small.err &&
    same_matrix small.mtx cpu-prism.mtx
  r=$?
  ok $r "FEMINT_DEVICE_MEMORY=1e6 on two devices: the COO sums in main memory, with a warning, the matrix of the CPU workers"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag small.err small.out; }
else
  for what in residual "BP3 CG" "BP5 split" "COO sums" "COO split" "FEMINT_DEVICE_MEMORY"; do
    skip "two devices, $what" "PoCL does not give two devices here"
  done
fi

# A kernel that does not build: a line of the GEMM kernel broken in an edited copy (before its
# first check of the build options, which every build reads)
mkdir -p broken && cp "$tests_dir"/../kernels/* broken/ &&
  line=$(grep -n '^#if !defined(NSH)' broken/volume_gemm.cl | cut -d: -f1) &&
  sed -i "${line}s/^/this is not OpenCL;\n/" broken/volume_gemm.cl
FEMINT_KERNEL_DIR=$tmp/broken "$FEMINT" run --mesh box:3,3,2 --order 2 --variant gemm \
  --output broken.mtx >broken.out 2>broken.err
st=$?
"$FEMINT" run --mesh box:3,3,2 --order 2 --where cpu --output good.mtx >good.out 2>&1
[ $st -eq 0 ] && grep -q "^result *PASS" broken.out && grep -q "broken/volume_gemm.cl:$line" broken.err &&
  grep -q "the CPU workers integrate" broken.err && same_matrix broken.mtx good.mtx
r=$?
ok $r "a kernel that does not build: its file and line named, the CPU workers integrate, verified"
[ $r -eq 0 ] || { echo "# exit status $st"; diag broken.err; }
FEMINT_KERNEL_DIR=$tmp/broken "$FEMINT" run --mesh box:3,3,2 --order 2 --variant gemm \
  --where opencl >broken2.out 2>broken2.err
st=$?
[ $st -eq 1 ] && grep -q "broken/volume_gemm.cl:$line" broken2.err
r=$?
ok $r "the same with OpenCL workers alone: exit 1 with the file and line"
[ $r -eq 0 ] || { echo "# exit status $st"; diag broken2.err; }

# Variables that make no sense: one line naming them, before StarPU starts
FEMINT_KERNEL_DIR=$tmp/nowhere "$FEMINT" info >bad.out 2>bad.err
st=$?
[ $st -eq 1 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q "FEMINT_KERNEL_DIR='$tmp/nowhere'" bad.err
r=$?
ok $r "FEMINT_KERNEL_DIR that is not a folder: exit 1, one line naming it"
[ $r -eq 0 ] || { echo "# exit status $st"; diag bad.err; }
# auto (the Maxwell matrices take COO on a device): by rows instead, with a warning
FEMINT_DEVICE_MEMORY=1e6 "$FEMINT" run --element tet --mesh box:3,3,3 --order 2 >rows.out \
  2>rows.err
st=$?
[ $st -eq 0 ] && grep -q "^result *PASS" rows.out && grep -q "^assembly *rows" rows.out &&
  grep -q "assembled by rows instead" rows.err
r=$?
ok $r "FEMINT_DEVICE_MEMORY=1e6, Maxwell matrices (auto: COO): assembled by rows, with a warning"
[ $r -eq 0 ] || { echo "# exit status $st"; diag rows.err rows.out; }
FEMINT_DEVICE_MEMORY=lots "$FEMINT" info >bad.out 2>bad.err
st=$?
[ $st -eq 1 ] && grep -q "FEMINT_DEVICE_MEMORY='lots'" bad.err
r=$?
ok $r "FEMINT_DEVICE_MEMORY=lots: exit 1 naming it"
[ $r -eq 0 ] || { echo "# exit status $st"; diag bad.err; }
for v in abc -1 99; do
  FEMINT_FAULT_DEVICE=$v "$FEMINT" info >bad.out 2>bad.err
  st=$?
  [ $st -eq 1 ] && grep -q "FEMINT_FAULT_DEVICE='$v'" bad.err
  r=$?
  ok $r "FEMINT_FAULT_DEVICE=$v: exit 1 naming it"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag bad.err; }
done
[ $failed -eq 0 ]

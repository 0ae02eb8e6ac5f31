#!/bin/sh
# Test: two OpenCL devices in one process (PoCL's CPU device twice) give the results of one device:
# the element matrices of prisms, quadrilaterals, Lagrange tetrahedra, triangles and hexahedra
# assembled by rows and by the COO sums, the Maxwell matrices of H(curl) tetrahedra, every worker
# together (two devices and the CPU workers), the matrix-free CG of BP5 and the pointwise residual.
# Where the results go to main memory (rows) both devices run tasks; where they are summed on a
# device (COO sums, apply, residual) the first device alone does by default, and both with
# --devices 2 (the COO sums and the apply split the rows or DOFs among them). StarPU's worker statistics (STARPU_WORKER_STATS) count each worker's tasks. With
# --reproducible the matrix is the same to the bit with 1 and 2 devices (other batches) and from
# run to run with 2 CPU workers.

FEMINT=${FEMINT:-./src/femint}
if [ ! -x "$FEMINT" ]; then
  echo "Bail out! femint program not found at '$FEMINT'"
  exit 1
fi
case $FEMINT in /*) ;; *) FEMINT=$(pwd)/$FEMINT ;; esac
tests_dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t602.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export FEMINT_CACHE_DIR="$tmp/cache" STARPU_OPENCL_ON_CPUS=1 POCL_DEVICES="pthread pthread"
. "$tests_dir/tap.sh"

# femint with N OpenCL devices (N = 1 or 2), StarPU's worker statistics on stderr. The eager
# scheduler places the tasks: any idle worker that may run a task takes it, so that a device the
# mask allows gets work and one it excludes shows any task that got through (dmda, once its models
# know that one device finishes a small run as soon as two, may rightly leave the second idle).
femint_on() {
  ndev=$1
  shift
  STARPU_SCHED=eager STARPU_NOPENCL=$ndev STARPU_WORKER_STATS=1 "$FEMINT" "$@"
}
# The tasks each OpenCL worker ran, from StarPU's statistics in FILE: "0:12 1:7".
device_tasks() {
  awk '/^OpenCL [0-9]/ { dev = $2; next } dev != "" && /task\(s\)/ { printf "%s:%s ", dev, $1; dev = "" }' "$1"
}
# The integration tasks of each OpenCL worker in the JSON of femint run (FILE): "0:12 1:7" (the
# run's own assembly; its verification integrates sampled cells again on every device).
run_tasks() {
  sed -n 's/.*"workers":\[\(.*\)\],"stages".*/\1/p' "$1" | tr '}' '\n' |
    sed -n 's/.*"name":"OpenCL \([0-9]*\) .*"integrate_tasks":\([0-9]*\).*/\1:\2/p' | tr '\n' ' '
}
# Whether the OpenCL workers ran tasks as expected (the counts "0:N 1:M" in $2): both, or the
# first alone. Counts from StarPU's statistics ($3 = 1) include one task per worker at the start,
# femint_init's binding of its threads.
busy() {
  want=$1 extra=${3:-0}
  set -- $2
  [ $# -eq 2 ] && [ "${1#*:}" -gt "$extra" ] || return 1
  if [ "$want" = both ]; then [ "${2#*:}" -gt "$extra" ]; else [ "${2#*:}" -eq "$extra" ]; fi
}

if ! femint_on 2 info >info.txt 2>&1 || ! grep -q "2 OpenCL workers" info.txt; then
  echo "1..0 # SKIP PoCL does not give two OpenCL devices here (POCL_DEVICES='pthread pthread')"
  exit 0
fi
echo "1..18"

# femint run with one device, then two: both verified, the same matrices (to 1e-12 of the largest
# entry; the batches differ), the devices busy as expected (both, or first).
pair() {
  name=$1
  want=$2
  shift 2
  femint_on 1 run "$@" --output one --json >one.txt 2>&1
  s1=$?
  # The devices race for the tasks of a short run: a device the system leaves unscheduled for the
  # whole run (two cores shared by every thread) takes none. The run is done again, up to 3 times,
  # while the results are right and one device stayed idle; a mask that leaves a device out fails
  # every time.
  for attempt in 1 2 3; do
    femint_on 2 run "$@" --output two --json >two.txt 2>two.err
    s2=$?
    # one matrix: the file one; the Maxwell pair: one-T.mtx and one-S.mtx
    same=1
    for f in one one-T.mtx one-S.mtx; do
      [ -f "$f" ] || continue
      same_matrix "$f" "two${f#one}" && same=${same#1} || { same=2; break; }
    done
    [ "$same" = "" ] && same=0
    [ $s1 -eq 0 ] && [ $s2 -eq 0 ] && grep -q '"pass":true}$' two.txt && [ $same -eq 0 ] || break
    busy $want "$(run_tasks two.txt)" && break
  done
  [ $s1 -eq 0 ] && [ $s2 -eq 0 ] && grep -q '"pass":true}$' two.txt && [ $same -eq 0 ] &&
    busy $want "$(run_tasks two.txt)"
  r=$?
  ok $r "$name: 2 devices ($want busy) give the matrix of 1 device, tasks per device: $(run_tasks two.txt)"
  [ $r -eq 0 ] || { echo "# exit $s1, $s2, same matrices: $same"; diag one.txt two.txt two.err; }
  rm -f one one-?.mtx two two-?.mtx
}
pair "prisms, orders 1-3, rows" both --mesh box:4,4,3 --order 1-3 --where opencl
pair "prisms, orders 1-3, COO sums on the device" first --mesh box:4,4,3 --order 1-3 \
  --where opencl --assembly coo
pair "prisms, COO sums, --devices 2" both --mesh box:4,4,3 --order 1-3 --where opencl \
  --assembly coo --devices 2
pair "prisms, single precision" both --mesh box:4,4,3 --order 2 --where opencl --precision single
pair "quadrilaterals, curved" both --element quad --mesh rect:24,24 --curved 0.1 --order 3 \
  --where opencl
pair "H(curl) tetrahedra, Maxwell T and S" first --element tet --mesh box:3,3,3 --order 2 \
  --where opencl
pair "Lagrange tetrahedra" both --element tet --space h1 --problem laplace --mesh box:5,5,5 --order 2 \
  --where opencl
pair "triangles" both --element tri --mesh rect:12,12 --order 3 --where opencl
pair "hexahedra" both --element hex --mesh box:4,4,4 --order 3 --problem laplace --where opencl
pair "prisms, every worker (2 devices and the CPU workers)" both --mesh box:4,4,3 --order 1-3

# A result that FN prints (femint on N devices, FN.json, StarPU's statistics in FN.err) with 1
# device, then with 2 (the first busy alone) and 2 with --devices 2 (both busy): the same each time.
# As in pair, a run whose result is right but left a device that should work idle is done
# again, up to 3 times.
on_devices() {
  label=$1 fn=$2
  v1=$($fn 1)
  for devices in "" "--devices 2"; do
    want=$([ -n "$devices" ] && echo both || echo first)
    for attempt in 1 2 3; do
      v2=$($fn 2 "$devices")
      [ -n "$v1" ] && [ "$v1" = "$v2" ] || break
      busy $want "$(device_tasks $fn.err)" 1 && break
    done
    [ -n "$v1" ] && [ "$v1" = "$v2" ] && busy $want "$(device_tasks $fn.err)" 1
    r=$?
    ok $r "$label ($v2) on 2 devices${devices:+ ($devices)} as on 1, $want busy: $(device_tasks $fn.err)"
    [ $r -eq 0 ] || diag $fn.json $fn.err
  done
}

# BP5 by CG: the same iterations and final residual to 4 digits (the sums of the element vectors
# are in a fixed order, whatever worker made them; with --devices 2 each device owns a range of
# the DOFs and the dot products are summed per device, which changes their last bits).
bp() {
  femint_on $1 bp --problem bp5 --order 3 --mesh box:4,4,4 --where opencl --runs 1 --solves 1 \
    --json $2 >bp.json 2>bp.err
  sed -n 's/.*"iterations":\([0-9]*\).*"relative_residual":\([^,]*\),.*/\1 \2/p' bp.json |
    awk '{ printf "%s %.4g\n", $1, $2 }'
}
on_devices "bp5 CG: iterations and residual" bp

# The residual: on 2 devices and the CPU workers, checked against the CPU (femint residual's
# checks), and on 2 devices alone the bits of 1 device.
femint_on 2 residual --element tri --order 2 --mesh rect:24,24 --aux field --where any >res.txt \
  2>res.err
r=$?
[ $r -eq 0 ] && grep -q "result        PASS" res.txt
r=$?
ok $r "residual on 2 devices and the CPU workers passes its checks (CPU against OpenCL)"
[ $r -eq 0 ] || diag res.txt res.err
residual() {
  femint_on $1 residual --element tet --order 1 --mesh box:4,4,4 --aux cell --where opencl \
    --pointwise gallery:elasticity --json $2 >residual.json 2>residual.err
  sed -n 's/.*"sum_error":\([^,]*\),.*/\1/p' residual.json
}
on_devices "residual: the sum of F" residual

# --reproducible: each entry's contributions summed in the plan's order, whatever the batches
for ndev in 1 2; do
  femint_on $ndev run --mesh box:5,5,3 --order 1-4 --where opencl --reproducible --quiet \
    --output rep$ndev.mtx 2>rep$ndev.err
done
cmp -s rep1.mtx rep2.mtx
r=$?
ok $r "--reproducible: the matrix of 1 and 2 devices (other batches) is the same to the bit"
[ $r -eq 0 ] || diag rep2.err
for k in 1 2; do
  STARPU_NCPU=2 femint_on 0 run --mesh box:5,5,3 --order 1-4 --where cpu --reproducible --quiet \
    --output cpu$k.mtx 2>cpu$k.err
done
cmp -s cpu1.mtx cpu2.mtx
r=$?
ok $r "--reproducible: two runs on 2 CPU workers give the same bits"
[ $r -eq 0 ] || diag cpu2.err

# Three devices: the middle one's ghosts come from both neighbours (one load of both packs), and
# each device applies its cells that read no ghost while they come; BP5 by CG as on 1 device.
bp3() {
  POCL_DEVICES="pthread pthread pthread" femint_on $1 bp --problem bp5 --order 2 \
    --mesh box:4,4,12 --where opencl --runs 1 --solves 1 --json $2 >bp3.json 2>bp3.err
  sed -n 's/.*"iterations":\([0-9]*\).*"relative_residual":\([^,]*\),.*/\1 \2/p' bp3.json |
    awk '{ printf "%s %.4g\n", $1, $2 }'
}
v1=$(bp3 1)
for attempt in 1 2 3; do
  v3=$(bp3 3 "--devices 3")
  nbusy=$(device_tasks bp3.err | tr ' ' '\n' | awk -F: '$2 > 1' | wc -l)
  [ -n "$v1" ] && [ "$v1" = "$v3" ] || break
  [ "$nbusy" -eq 3 ] && break
done
[ -n "$v1" ] && [ "$v1" = "$v3" ] && [ "$nbusy" -eq 3 ]
r=$?
ok $r "bp5 CG ($v3) on 3 devices (--devices 3) as on 1, all busy: $(device_tasks bp3.err)"
[ $r -eq 0 ] || diag bp3.json bp3.err
[ $failed -eq 0 ]

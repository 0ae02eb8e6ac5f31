#!/bin/sh
# Test: femint keeps its workers, their OpenMP teams and every thread of the process inside the
# process's cpuset, so that two processes under taskset on disjoint PUs bind disjoint PUs, and the
# OpenCL device goes by an explicit number or by the local rank modulo the number of devices.

FEMINT=${FEMINT:-./src/femint}
if [ ! -x "$FEMINT" ]; then
  echo "Bail out! femint program not found at '$FEMINT'"
  exit 1
fi
case $FEMINT in /*) ;; *) FEMINT=$(pwd)/$FEMINT ;; esac
if ! python3 -c 'import json' 2>/dev/null; then
  echo "1..0 # SKIP needs python3 to read femint's JSON"
  exit 0
fi
if ! command -v taskset >/dev/null 2>&1; then
  echo "1..0 # SKIP needs taskset (util-linux)"
  exit 0
fi

# The folder of this script and of tap.sh (sourced below, after the cd into $tmp).
tests_dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t402.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# The launchers' local rank variables of an enclosing job must not choose for the tests.
unset OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALRANKID MV2_COMM_WORLD_LOCAL_RANK SLURM_LOCALID
export STARPU_SILENT=1

. "$tests_dir/tap.sh"

# check.py FILE CPUSET: the binding femint reports in FILE (femint info --json) lies inside
# CPUSET: the process's cpuset itself, every worker's PUs and measured binding, every thread.
cat >check.py <<'EOF'
import json, sys

def pus(text):
    s = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s

d = json.load(open(sys.argv[1]))
want = pus(sys.argv[2])
what = sys.argv[3]
if what == "cpuset":
    assert pus(d["cpuset"]) == want, "cpuset %s, not %s" % (d["cpuset"], sys.argv[2])
elif what == "workers":
    assert d["workers"], "no worker"
    for w in d["workers"]:
        assert w["pus"] and w["bound"], "worker %d: binding missing: %s" % (w["id"], w)
        assert pus(w["pus"]) <= want and pus(w["bound"]) <= want, \
            "worker %d (%s): PUs %s, bound to %s" % (w["id"], w["kind"], w["pus"], w["bound"])
elif what == "threads":
    assert d["threads"], "no thread listed"
    out = [t for t in d["threads"] if not pus(t["pus"]) <= want]
    assert not out, "%d of %d threads may run outside the cpuset: %s" % (len(out), len(d["threads"]), out)
print("%s: %s inside %s" % (sys.argv[1], what, sys.argv[2]))
EOF

# disjoint.py A B: the PUs that the workers and threads of A and of B are bound to do not meet.
cat >disjoint.py <<'EOF'
import json, sys
def pus(text):
    s = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s
def used(path):
    d = json.load(open(path))
    s = set()
    for w in d["workers"]:
        s |= pus(w["pus"]) | pus(w["bound"])
    for t in d["threads"]:
        s |= pus(t["pus"])
    return s
a, b = used(sys.argv[1]), used(sys.argv[2])
assert a and b and not (a & b), "PUs %s and %s meet" % (sorted(a), sorted(b))
print("PUs %s and %s" % (sorted(a), sorted(b)))
EOF

# field.py FILE EXPR: prints a value of the JSON (d is the object).
cat >field.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
EOF

# The PUs this script may use, and the first two of them.
allowed=$(python3 -c 'import os; print(",".join(str(c) for c in sorted(os.sched_getaffinity(0))))')
pu_a=$(echo "$allowed" | cut -d, -f1)
pu_b=$(echo "$allowed" | cut -d, -f2 -s)

# Without taskset: the cpuset is the script's own, and nothing is bound outside it.
"$FEMINT" info --json >all.json 2>all.err
st=$?
ok $st "femint info --json runs"
[ $st -eq 0 ] || diag all.err
for what in cpuset workers threads; do
  python3 check.py all.json "$allowed" $what >chk.out 2>&1
  r=$?
  ok $r "unrestricted: $what inside the process's PUs $allowed"
  [ $r -eq 0 ] || { tail -n 1 chk.out | diag; diag all.json; }
done

if [ -z "$pu_b" ]; then
  for t in "two ranks at once" "a driver core apart from the CPU teams"; do
    skip "$t" "the test may use one PU only ($allowed)"
  done
else
  # One PU: a warm-up run calibrates StarPU's bus model for this configuration, so that the two
  # runs at once below do not both rewrite it.
  taskset -c "$pu_a" "$FEMINT" info --json >warm.json 2>warm.err
  ok $? "taskset -c $pu_a femint info --json runs on one PU"
  # Two "ranks" at once, on PU A and PU B.
  taskset -c "$pu_a" "$FEMINT" info --json >a.json 2>a.err &
  pid_a=$!
  taskset -c "$pu_b" "$FEMINT" info --json >b.json 2>b.err &
  pid_b=$!
  wait $pid_a
  st_a=$?
  wait $pid_b
  st_b=$?
  [ $st_a -eq 0 ] && [ $st_b -eq 0 ]
  r=$?
  ok $r "two femint info at once under taskset -c $pu_a and taskset -c $pu_b"
  [ $r -eq 0 ] || { diag a.err; diag b.err; }
  for rank in a b; do
    if [ $rank = a ]; then pu=$pu_a; else pu=$pu_b; fi
    for what in cpuset workers threads; do
      python3 check.py $rank.json "$pu" $what >chk.out 2>&1
      r=$?
      ok $r "rank on PU $pu: $what inside its cpuset"
      [ $r -eq 0 ] || { tail -n 1 chk.out | diag; diag $rank.json; }
    done
  done
  python3 disjoint.py a.json b.json >dis.out 2>&1
  r=$?
  ok $r "the two ranks use disjoint PUs: $(tail -n 1 dis.out)"
  [ $r -eq 0 ] || { diag a.json; diag b.json; }

  # Two PUs on two cores, one OpenCL device: its driver has a core of its own.
  taskset -c "$pu_a,$pu_b" "$FEMINT" info --json >two.json 2>two.err
  st=$?
  cores=$(python3 field.py two.json 'd["cores"]' 2>/dev/null)
  nocl=$(python3 field.py two.json 'd["opencl_workers"]' 2>/dev/null)
  if [ $st -ne 0 ]; then
    ok 1 "taskset -c $pu_a,$pu_b femint info --json runs"
    diag two.err
  elif [ "$cores" != 2 ] || [ "$nocl" != 1 ]; then
    skip "a driver core apart from the CPU teams" "$cores cores, $nocl OpenCL workers"
  else
    python3 field.py two.json '" ".join(w["pus"] for w in d["workers"] if w["kind"] == "opencl") + " | " + " ".join(w["pus"] for w in d["workers"] if w["kind"] == "cpu")' >split.out
    python3 -c '
import json
d = json.load(open("two.json"))
drv = {w["pus"] for w in d["workers"] if w["kind"] == "opencl"}
cpu = {w["pus"] for w in d["workers"] if w["kind"] == "cpu"}
team = sum(w["team_size"] for w in d["workers"] if w["kind"] == "cpu")
assert drv and cpu and not (drv & cpu) and team == 1, (drv, cpu, team)
' 2>split.err
    r=$?
    ok $r "on 2 cores, the OpenCL driver and the CPU team get one core each: $(cat split.out)"
    [ $r -eq 0 ] || { tail -n 1 split.err | diag; diag two.json; }
  fi
fi

# The OpenCL device by number and by local rank.
"$FEMINT" info --json --opencl-device 0 >d0.json 2>d0.err
st=$?
ndev=0
if [ $st -eq 0 ]; then
  ndev=$(python3 field.py all.json 'd["opencl_workers"]')
fi
if [ $st -ne 0 ] || [ "$ndev" = 0 ]; then
  for t in "--opencl-device" "--local-rank" "--local-rank env" "two devices"; do
    skip "$t" "no OpenCL device (STARPU_OPENCL_ON_CPUS=1 gives PoCL's CPU device)"
  done
else
  got=$(python3 field.py d0.json '[w["device"] for w in d["workers"] if w["kind"] == "opencl"]')
  [ "$got" = "[0]" ]
  ok $? "--opencl-device 0 drives device 0 only: $got"

  # Out of range: one clear line, exit status 1.
  "$FEMINT" info --opencl-device 7 >bad.out 2>bad.err
  st=$?
  [ $st -eq 1 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q "OpenCL device 7 does not exist" bad.err
  ok $? "--opencl-device 7: exit 1 and '$(cat bad.err)'"
  "$FEMINT" info --local-rank env >env.out 2>env.err
  st=$?
  [ $st -eq 1 ] && grep -q "OMPI_COMM_WORLD_LOCAL_RANK" env.err
  ok $? "--local-rank env without a launcher's variable: exit 1 and a message naming them"
  "$FEMINT" info --opencl-device x >use.out 2>use.err
  st=$?
  "$FEMINT" info --opencl-device 0 --local-rank 1 >use2.out 2>use2.err
  st2=$?
  [ $st -eq 2 ] && [ $st2 -eq 2 ]
  ok $? "--opencl-device x and both options together are usage errors (exit 2)"

  # Local rank 3 takes device 3 mod the number of devices (one in CI: PoCL's).
  "$FEMINT" info --json --local-rank 3 >r3.json 2>r3.err
  got=$(python3 field.py r3.json '([w["device"] for w in d["workers"] if w["kind"] == "opencl"], d["local_rank"], d["local_rank_source"])' 2>&1)
  [ "$got" = "([$((3 % ndev))], 3, 'option')" ]
  ok $? "--local-rank 3 with $ndev device(s) drives device $((3 % ndev)): $got"

  # Two devices or more: PoCL makes two CPU devices with POCL_DEVICES="pthread pthread".
  export POCL_DEVICES="pthread pthread"
  "$FEMINT" info --json >p.json 2>p.err
  nd2=$(python3 field.py p.json 'd["opencl_workers"]' 2>/dev/null)
  if [ -z "$nd2" ] || [ "$nd2" -lt 2 ]; then
    skip "two devices" "no second OpenCL device (PoCL's POCL_DEVICES='pthread pthread')"
  else
    for rank in 0 1 2 3 5; do
      want="[$((rank % nd2))]"
      got=$("$FEMINT" info --json --local-rank $rank 2>lr.err |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print([w["device"] for w in d["workers"] if w["kind"] == "opencl"])' 2>&1)
      [ "$got" = "$want" ]
      ok $? "$nd2 devices, --local-rank $rank drives device $want: $got"
    done
    for var in OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALRANKID SLURM_LOCALID; do
      got=$(env "$var=3" "$FEMINT" info --json --local-rank env 2>lr.err |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print([w["device"] for w in d["workers"] if w["kind"] == "opencl"], d["local_rank"], d["local_rank_source"])' 2>&1)
      [ "$got" = "[$((3 % nd2))] 3 $var" ]
      ok $? "$nd2 devices, $var=3 and --local-rank env drive device $((3 % nd2)): $got"
    done
  fi
  unset POCL_DEVICES
fi

echo "1..$n"
[ $failed -eq 0 ]

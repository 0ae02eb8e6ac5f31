#!/bin/sh
# Test: examples/petsc_elasticity (MPI + PETSc, femint integrating each rank's cells) gives the
# same solution on 1, 2 and 4 ranks (L2 error, norm and checksum of the solution to the solver's
# tolerance), on a box and on a Gmsh file, its L2 error falls at the rate p + 1 for p = 1 and 2,
# the distributed mode (each rank builds only its part and numbers the DOFs by their keys) gives
# the solution of the replicated one on 1, 2, 3 and 4 ranks and on the partitions of a Gmsh file
# and keeps the rate, and two ranks bound by mpirun get disjoint cores in femint. Skipped when
# configure found no MPI or PETSc.

# make check sets PETSC_EXAMPLE to the program where configure found MPI and PETSc, else to "".
ex=${PETSC_EXAMPLE-examples/petsc_elasticity}
data=${TEST_DATA:-tests/data}
if [ -z "$ex" ] || [ -z "${MPIEXEC:-}" ] || [ ! -x "$ex" ]; then
  echo "1..0 # SKIP configured without MPI or PETSc (examples/petsc_elasticity not built)"
  exit 0
fi

. "$(dirname "$0")/mpi.sh"
launch="$MPIEXEC"
"$MPIEXEC" --version 2>&1 | grep -Eq "Open ?MPI|OpenRTE|open-mpi" && openmpi=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t702.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# mpirun's session files in this test's folder: two mpiruns starting at once (the MPI tests
# run in parallel under make -j) race to create the same /tmp/ompi.HOST.UID otherwise
export OMPI_MCA_orte_tmpdir_base="$tmp"

. "$(dirname "$0")/tap.sh"

# run NAME RANKS ARGS...: the example on RANKS ranks; its output in $tmp/NAME.
run() {
  name=$1 np=$2
  shift 2
  $launch -n "$np" "$ex" "$@" >"$tmp/$name" 2>&1
}
# The numbers of an output: L2 error, solution norm, checksum.
err() { awk '/^L2 error:/ {print $3}' "$tmp/$1"; }
norm() { awk '/^solution:/ {print $3}' "$tmp/$1"; }
sum() { awk '/^solution:/ {print $5}' "$tmp/$1"; }
show() { diag "$tmp/$1"; }

# agree A B [any]: the same L2 error and norm to 1e-7 relative, the checksum to 1e-7 of the norm
# (the solver stops at a relative residual of 1e-10; different ranks build different GAMG
# hierarchies, so the iterates differ at about 1e-8). With "any" the checksum, which depends on
# the numbering of the DOFs, is not compared (the distributed mode numbers them otherwise).
agree() {
  awk -v e1="$(err "$1")" -v e2="$(err "$2")" -v n1="$(norm "$1")" -v n2="$(norm "$2")" \
    -v s1="$(sum "$1")" -v s2="$(sum "$2")" -v any="${3:-}" \
    'function abs(x) { return x < 0 ? -x : x }
    BEGIN { ok = e1 != "" && e2 != "" && n1 > 0 && abs(e1 - e2) <= 1e-7 * e1 &&
                 abs(n1 - n2) <= 1e-7 * n1 && (any == "any" || abs(s1 - s2) <= 1e-7 * n1)
            if (any == "any") printf "L2 error %s vs %s, norm %s vs %s\n", e1, e2, n1, n2
            else printf "L2 error %s vs %s, norm %s vs %s, checksum %s vs %s\n", e1, e2, n1, n2, s1, s2
            exit !ok }'
}

# rate COARSE FINE MIN: log2 of the ratio of the L2 errors of two meshes, h halved, at least MIN.
rate() {
  awk -v a="$(err "$1")" -v b="$(err "$2")" -v min="$3" \
    'BEGIN { r = (a > 0 && b > 0) ? log(a / b) / log(2) : 0
             printf "errors %s -> %s, rate %.2f (at least %s)\n", a, b, r, min; exit !(r >= min) }'
}

# Convergence on 1 rank: the unit cube with 4 and 8 hexahedra a side at p = 1, 2 and 4 at p = 2.
for c in "p1n4 -order 1 -n 4" "p1n8 -order 1 -n 8" "p2n2 -order 2 -n 2" "p2n4 -order 2 -n 4"; do
  # shellcheck disable=SC2086 # the words of $c are the name and the arguments
  set -- $c
  name=$1
  shift
  run "$name" 1 "$@" || { show "$name"; }
done
line=$(rate p1n4 p1n8 1.75)
ok $? "p = 1, h = 1/4 -> 1/8: $line"
line=$(rate p2n2 p2n4 2.75)
ok $? "p = 2, h = 1/2 -> 1/4: $line"

# The same problem on 2 ranks, and on 4 (more ranks than cores; CPU workers only, which keeps
# the oversubscribed run short).
run p2n4-2 2 -order 2 -n 4
line=$(agree p2n4 p2n4-2)
st=$?
ok $st "p = 2, box 4^3, 1 rank and 2 ranks: $line"
[ $st -eq 0 ] || show p2n4-2
run p2n4-4 4 -order 2 -n 4 -where cpu
line=$(agree p2n4 p2n4-4)
st=$?
ok $st "p = 2, box 4^3, 1 rank and 4 ranks (CPU workers): $line"
[ $st -eq 0 ] || show p2n4-4
run p1n8-2 2 -order 1 -n 8
line=$(agree p1n8 p1n8-2)
ok $? "p = 1, box 8^3, 1 rank and 2 ranks: $line"
# The element matrices inserted by MatSetValues instead of the COO interface: the same solution.
run p2n4-2s 2 -order 2 -n 4 -setvalues
line=$(agree p2n4 p2n4-2s)
st=$?
ok $st "p = 2, box 4^3, 2 ranks with MatSetValues and 1 rank with the COO interface: $line"
[ $st -eq 0 ] || show p2n4-2s

# The Gmsh file of prisms on [0,2]x[0,1]x[0,1] (the exact solution vanishes on its boundary).
run gmsh-1 1 -order 2 -mesh "$data/prisms.msh"
run gmsh-2 2 -order 2 -mesh "$data/prisms.msh"
line=$(agree gmsh-1 gmsh-2)
st=$?
rel=$(awk '/^L2 error:/ {print $5}' "$tmp/gmsh-1" | tr -d ')')
awk -v r="$rel" 'BEGIN { exit !(r != "" && r < 0.05) }' || st=1
ok $st "p = 2, prisms.msh, 1 rank and 2 ranks: $line; relative L2 error $rel < 0.05"
[ $st -eq 0 ] || { show gmsh-1; show gmsh-2; }

# The distributed mode: each rank builds only its slab of the box (1, 2 and 4 ranks own whole
# layers; 3 ranks cut the layers) or its partition of prisms-part.msh, and numbers the DOFs by
# their keys: the solution of the replicated mode, whatever the numbering.
for np in 1 2 3 4; do
  run "dist-$np" "$np" -order 2 -n 4 -where cpu -distributed
  line=$(agree p2n4 "dist-$np" any)
  st=$?
  ranks=ranks
  [ "$np" -gt 1 ] || ranks=rank
  ok $st "p = 2, box 4^3, distributed on $np $ranks and replicated on 1: $line"
  [ $st -eq 0 ] || show "dist-$np"
done
for c in "dist-p1n4 -order 1 -n 4" "dist-p1n8 -order 1 -n 8" "dist-p2n2 -order 2 -n 2"; do
  # shellcheck disable=SC2086 # the words of $c are the name and the arguments
  set -- $c
  name=$1
  shift
  run "$name" 2 "$@" -where cpu -distributed || show "$name"
done
line=$(rate dist-p1n4 dist-p1n8 1.75)
ok $? "distributed on 2 ranks, p = 1, h = 1/4 -> 1/8: $line"
line=$(rate dist-p2n2 dist-2 2.75)
ok $? "distributed on 2 ranks, p = 2, h = 1/2 -> 1/4: $line"
run gmsh-part-1 1 -order 2 -mesh "$data/prisms-part.msh" -where cpu
run gmsh-part-2 2 -order 2 -mesh "$data/prisms-part.msh" -where cpu -distributed
line=$(agree gmsh-part-1 gmsh-part-2 any)
st=$?
ok $st "p = 2, prisms-part.msh, replicated on 1 rank and one partition on each of 2 ranks: $line"
[ $st -eq 0 ] || { show gmsh-part-1; show gmsh-part-2; }

# Two ranks bound to one core each by mpirun: femint's workers of each stay on its core.
if [ "${openmpi:-0}" = 1 ] && [ -x "${FEMINT:-}" ] && command -v python3 >/dev/null &&
  [ "$(nproc)" -ge 2 ]; then
  $launch -n 2 --bind-to core "$FEMINT" info --json >"$tmp/info" 2>&1
  line=$(python3 - "$tmp/info" <<'EOF'
import json, sys

def pus(text):
    s = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s

try:
    ranks = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
except ValueError as e:
    print("unreadable femint info output: %s" % e)
    sys.exit(1)
sets = [pus(r["cpuset"]) for r in ranks]
inside = all(pus(w["bound"] or w["pus"]) <= s and pus(w["pus"]) <= s
             for r, s in zip(ranks, sets) for w in r["workers"])
disjoint = len(sets) == 2 and not (sets[0] & sets[1])
print("cpusets %s, workers inside their rank's cpuset: %s"
      % (" and ".join(r["cpuset"] for r in ranks), "yes" if inside else "no"))
sys.exit(0 if disjoint and inside else 1)
EOF
)
  st=$?
  ok $st "mpirun --bind-to core, 2 ranks of femint info: $line"
  [ $st -eq 0 ] || show info
else
  skip "bindings under mpirun" "needs Open MPI, python3, femint and 2 cores"
fi

echo "1..$n"
[ $failed -eq 0 ]

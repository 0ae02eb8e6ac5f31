#!/bin/sh
# Test: examples/petsc_snes (Bratu's equation through PETSc's SNES, femint's residual and
# Jacobian from pointwise functions on each rank's cells) converges quadratically, in the same
# Newton steps and to the same solution (L2 error to 1e-9 relative) on 1, 2 and 4 ranks, on CPU
# and on OpenCL workers; the L2 error falls at the rate p + 1; the distributed mode (each rank
# builds only its part of the square and numbers the DOFs by their keys) gives the solution of
# the replicated one on the same unperturbed square on 1, 2 and 4 ranks, and the same on 1 rank
# and on the 2 partitions of a partitioned Gmsh file of triangles. Skipped when configure found
# no MPI or PETSc.

# make check sets PETSC_SNES to the program where configure found MPI and PETSc, else to "".
ex=${PETSC_SNES-examples/petsc_snes}
data=${TEST_DATA:-tests/data}
if [ -z "$ex" ] || [ -z "${MPIEXEC:-}" ] || [ ! -x "$ex" ]; then
  echo "1..0 # SKIP configured without MPI or PETSc (examples/petsc_snes not built)"
  exit 0
fi
. "$(dirname "$0")/mpi.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t705.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# mpirun's session files in this test's folder: two mpiruns starting at once (the MPI tests
# run in parallel under make -j) race to create the same /tmp/ompi.HOST.UID otherwise
export OMPI_MCA_orte_tmpdir_base="$tmp"
export FEMINT_CACHE_DIR="$tmp/cache"
. "$(dirname "$0")/tap.sh"

run() { # run NAME RANKS ARGS...
  out=$1 ranks=$2
  shift 2
  "$MPIEXEC" -n "$ranks" "$ex" "$@" >"$tmp/$out" 2>&1
}
steps() { awk '/^newton:/ {print $2}' "$tmp/$1"; }
err() { awk '/^L2 error:/ {print $3}' "$tmp/$1"; }
# same A B: the same Newton steps and L2 error (to 1e-9 relative) in two outputs.
same() {
  awk -v s1="$(steps "$1")" -v s2="$(steps "$2")" -v e1="$(err "$1")" -v e2="$(err "$2")" \
    'function abs(x) { return x < 0 ? -x : x }
    BEGIN { printf "%s and %s steps, L2 error %s and %s", s1, s2, e1, e2
            exit !(s1 > 0 && s1 == s2 && e1 > 0 && abs(e1 - e2) <= 1e-9 * e1) }'
}
# compare A B TEXT: a test point that A and B are the same, with their numbers; B's output shown
# when they are not.
compare() {
  line=$(same "$1" "$2")
  st=$?
  ok $st "$3: $line"
  [ $st -eq 0 ] || diag "$tmp/$2"
}

run one 1 -n 8 -order 2
st=$?
ok $st "1 rank: $(head -n 1 "$tmp/one")"
[ $st -eq 0 ] || diag "$tmp/one"
# quadratic: some step divides |F| by at least the square of the previous reduction over 100
line=$(awk '/^newton:/ { for (k = 7; k < NF; k++) { a = $k; b = $(k + 1)
         if (a < 1e-2 && b > 1e-13 && b <= 100 * a * a) q = 1 }
         printf "%s", $0; exit !q }' "$tmp/one")
ok $? "quadratic convergence: $line"
for np in 2 4; do
  for where in cpu opencl; do
    [ "$np" = 4 ] && [ "$where" = opencl ] && continue
    run "np$np-$where" "$np" -n 8 -order 2 -where $where
    compare one "np$np-$where" "1 rank and $np ranks ($where workers)"
  done
done
# The distributed mode on the unperturbed square (-perturb 0 makes the replicated one so): each
# rank builds its strip of triangles, removes the DOFs of the faces of tag > 0 and numbers the
# DOFs by their keys; the solution of the replicated mode on 1, 2 and 4 ranks.
run flat 1 -n 8 -order 2 -perturb 0
for c in "1 rank cpu" "2 ranks cpu" "2 ranks opencl" "4 ranks cpu"; do
  # shellcheck disable=SC2086 # the words of $c: the ranks, "rank" or "ranks", the workers
  set -- $c
  run "dist$1-$3" "$1" -n 8 -order 2 -where "$3" -distributed
  compare flat "dist$1-$3" "distributed on $1 $2 ($3 workers) and replicated on 1, unperturbed"
done
# The partitions of a Gmsh file of triangles: quads-part.msh (the quarter annulus of quads.geo in
# 2 partitions) with each quadrangle cut into 2 triangles along its diagonal from its node 0 to
# its node 2 (the second ones numbered after the file's last element). Its side on x = 0 has no
# physical tag, so u = 0 holds on its other sides only, and sin(pi x) sin(pi y) does not solve
# that problem: the L2 errors compared are large, but those of the same discrete problem.
awk 'NR == FNR { if (/^\$Elements/) e = 1; else if (/^\$EndElements/) e = 0
                 else if (e == 1) { e = 2; max = $4 }
                 else if (e == 2 && left == 0) { left = $4; if ($3 == 3) nq += $4 }
                 else if (e == 2) left--
                 next }
     /^\$Elements/ { print; s = 1; next }
     /^\$EndElements/ { s = 0; print; next }
     s == 1 { print $1, $2 + nq, $3, 2 * $4; s = 2; next }
     s == 2 && left == 0 { left = $4; quad = $3 == 3
                           if (quad) print $1, $2, 2, 2 * $4; else print; next }
     s == 2 { left--; if (quad) { print $1, $2, $3, $4; print $1 + max, $2, $4, $5 } else print
              next }
     { print }' "$data/quads-part.msh" "$data/quads-part.msh" >"$tmp/tris-part.msh"
run gmsh1 1 -mesh "$tmp/tris-part.msh" -order 2 -where cpu -distributed
run gmsh2 2 -mesh "$tmp/tris-part.msh" -order 2 -where cpu -distributed
compare gmsh1 gmsh2 "distributed, a partitioned Gmsh file of triangles, whole on 1 rank and a \
partition on each of 2 ranks"
run r4 2 -n 4 -order 2 -where cpu
run r8 2 -n 8 -order 2 -where cpu
line=$(awk -v a="$(err r4)" -v b="$(err r8)" \
  'BEGIN { r = (a > 0 && b > 0) ? log(a / b) / log(2) : 0
           printf "errors %s -> %s, rate %.2f", a, b, r; exit !(r >= 2.7) }')
ok $? "p = 2, h = 1/4 -> 1/8 on 2 ranks: $line (at least 2.7)"
run bad 1 -order 4
st=$?
[ $st -ne 0 ] && grep -q "order" "$tmp/bad"
ok $? "-order 4 refused by name"
run bad2 1 -distributed -perturb 0.1
st=$?
[ $st -ne 0 ] && grep -q "perturb" "$tmp/bad2"
ok $? "-perturb 0.1 with -distributed refused by name"
echo "1..$n"
[ "$failed" -eq 0 ]
